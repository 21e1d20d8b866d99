import { defineLab, TCP_CCAS } from 'ccbrowse';

// Robustness benchmark lab (`lab bench` on traces the model never saw, under conditions it
// was not trained on): the 16 trained TCP controllers behind a 150 ms region and a jittery 20 ms one.
// TCP only, to keep `lab up` light on a 2-core host (each origin samples tcp_info every 10 ms).
export default defineLab({
  name: 'robust',
  origins: TCP_CCAS.map((cca) => ({ name: `tcp-${cca}`, hosts: [`${cca}.tcp.lab.ccb.test`], cca })),
  regions: [
    { name: 'far', rttMs: 150 },
    { name: 'jitter', rttMs: 20, jitterMs: 5 },
  ],
});
