import { defineLab } from '../src/lab/config.js';

// A fresh round for the BBR versions and what the learned BBRv1 class also took (2026-11-26:
// BBRv3, Copa, Hybla; docs/benchmarks/classifier.md "BBRv1 needs its own signature"): kernel
// BBRv1, the lab's BBRv2/v3, Copa, FAST, the open-set Hybla, and CUBIC/Reno as controls, in the
// base region (10 ms) and in one no grid or held-out condition has (60 ms, 1 ms jitter).
const CCAS = ['bbr', 'bbr2', 'bbr3', 'copa', 'fast', 'hybla', 'cubic', 'reno'] as const;
export default defineLab({
  name: 'ccbbbr',
  origins: CCAS.map((cca) => ({ name: `tcp-${cca}`, hosts: [`${cca}.tcp.lab.ccb.test`], cca })),
  regions: [{ name: 'near', rttMs: 10 }, { name: 'mid', rttMs: 60, jitterMs: 1 }],
});
