import { defineLab, TCP_CCAS } from 'ccbrowse';

// The training/benchmark lab: one bulk origin per trained controller (16 TCP, 5 QUIC; the
// open-set strangers are in labs/open-set.ts) and one region, nothing else (the sites'
// origins are not needed here and slow `lab up` down).
export default defineLab({
  name: 'train',
  origins: [
    ...TCP_CCAS.map((cca) => ({ name: `tcp-${cca}`, hosts: [`${cca}.tcp.lab.ccb.test`], cca })),
    ...(['newreno', 'cubic', 'bbr'] as const).map((cca) => ({
      name: `quinn-${cca}`, hosts: [`${cca}.quinn.lab.ccb.test`], serve: 'h3' as const, stack: 'quinn' as const, cca })),
    ...(['reno', 'cubic'] as const).map((cca) => ({
      name: `aioquic-${cca}`, hosts: [`${cca}.aioquic.lab.ccb.test`], serve: 'h3' as const, stack: 'aioquic' as const, cca })),
  ],
  // One region keeps `lab up` light on a 2-core host (each origin polls tcp_info every 10 ms);
  // labs/train-far.ts adds the second region for training at a longer RTT.
  regions: [{ name: 'near', rttMs: 10 }],
});
