import { defineLab, LAB_TCP_CCAS } from '../src/lab/config.js';

// Issue 17's benchmark lab: every lab TCP controller in one region, the trained ones (kernel
// reno/cubic/bbr, the 13 trained BPF ones incl. BBRv2/v3, FAST and Copa) and the five open-set
// strangers, so one `lab train --only ...` and one `lab bench` cover the new rows and the open
// set (docs/lab-cca.md, "Classifier and benchmark"). TCP only: QUIC is not part of issue 17.
export default defineLab({
  name: 'ccb17',
  origins: LAB_TCP_CCAS.map((cca) => ({ name: `tcp-${cca}`, hosts: [`${cca}.tcp.lab.ccb.test`], cca })),
  regions: [{ name: 'near', rttMs: 10 }],
});
