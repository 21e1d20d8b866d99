import { defineLab, OPEN_SET_TCP_CCAS } from '../src/lab/config.js';

// The open set: controllers no class is trained on (Hybla, CDG, TCP-LP, TCP-NV, DCTCP
// without ECN), one bulk origin each, one region like labs/train.ts. Bench them with
//   ccbrowse lab up --config labs/open-set.ts
//   ccbrowse lab bench --lab open-set --dataset build/bench/open-set.json
// A correct answer for a stranger is Unknown or its design family, never a confident
// wrong label (docs/lab-cca.md, "Open set"). Region `mid` (60 ms, 1 ms jitter: a distance the
// model is not trained at, between two it is) asks the same of strangers farther away
// (`--region mid`).
export default defineLab({
  name: 'open-set',
  origins: OPEN_SET_TCP_CCAS.map((cca) => ({ name: `tcp-${cca}`, hosts: [`${cca}.tcp.lab.ccb.test`], cca })),
  regions: [{ name: 'near', rttMs: 10 }, { name: 'mid', rttMs: 60, jitterMs: 1 }],
});
