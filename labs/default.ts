import { defineLab, TCP_CCAS } from 'ccbrowse';

// The default lab: the five lab sites' origins with mixed controllers (as real services
// mix CDNs), one bulk origin per TCP controller and per QUIC stack/controller for probes
// and training, and three regions of increasing distance.
export default defineLab({
  name: 'default',
  origins: [
    { name: 'www', hosts: ['www.lab.ccb.test'], cca: 'cubic' },
    { name: 'media', hosts: ['media.lab.ccb.test'], cca: 'bbr' },
    { name: 'live', hosts: ['live.lab.ccb.test'], cca: 'bbr' },
    { name: 'audio', hosts: ['audio.lab.ccb.test'], cca: 'reno' },
    { name: 'img', hosts: ['img.lab.ccb.test'], serve: 'h3', stack: 'quinn', cca: 'cubic' },
    ...TCP_CCAS.map((cca) => ({ name: `tcp-${cca}`, hosts: [`${cca}.tcp.lab.ccb.test`], cca })),
    ...(['newreno', 'cubic', 'bbr'] as const).map((cca) => ({
      name: `quinn-${cca}`, hosts: [`${cca}.quinn.lab.ccb.test`], serve: 'h3' as const, stack: 'quinn' as const, cca })),
    ...(['reno', 'cubic'] as const).map((cca) => ({
      name: `aioquic-${cca}`, hosts: [`${cca}.aioquic.lab.ccb.test`], serve: 'h3' as const, stack: 'aioquic' as const, cca })),
  ],
  regions: [
    { name: 'local', rttMs: 0 },
    { name: 'near', rttMs: 10, jitterMs: 1 },
    // A far region where the video origin serves CUBIC instead of BBR.
    { name: 'far', rttMs: 150, jitterMs: 5, cca: { media: 'cubic' } },
  ],
});
