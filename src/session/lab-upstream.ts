/**
 * The lab as a run's upstream (upstream.ts), the one place a session meets lab specifics: the run's upstream namespace is
 * routed to the lab router, Chromium maps the region's hostnames to its origins and trusts the
 * lab's certificate, a call scenario gets its far end (a second Chromium beyond the
 * bottleneck), and the origins' own view of the run's connections is kept with the run.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { connectRunToLab } from '../lab/network.js';
import { regionHostMap, type RunningLab } from '../lab/state.js';
import { labChromiumArgs } from '../lab/sites/chromium.js';
import { startCallPeer } from '../lab/sites/call-peer.js';
import { extractGroundTruth } from '../lab/ground-truth.js';
import { namespaceChromium } from '../browser/launch.js';
import { processStartTime, undo } from '../net/resources.js';
import { labUrl, type LabContext } from '../scenario/lab.js';
import type { Upstream } from './upstream.js';

export function labUpstream(lab: RunningLab, region: string): Upstream {
  return {
    mode: 'lab',
    async attach(stack, topo, scenario) {
      const { runAddr } = await connectRunToLab(stack, { runId: topo.runId, upstreamNs: topo.upstreamNs, routerNs: lab.routerNs });
      const hosts = regionHostMap(lab, region);
      const h3Hosts = lab.origins.filter((o) => o.region === region && o.serve === 'h3').flatMap((o) => o.hosts);
      const labContext: LabContext = { hosts: Object.fromEntries(Object.keys(hosts).map((h) => [h.split('.')[0], `https://${h}`])) };
      return {
        chromiumArgs: [...labChromiumArgs({ hosts, spki: [lab.certs.spki], fakeMedia: scenario.kind === 'call' }),
          ...(h3Hosts.length ? ['--enable-quic', `--origin-to-force-quic-on=${h3Hosts.map((h) => `${h}:443`).join(',')}`] : [])],
        labContext,
        async beforeBrowser(say) {
          if (scenario.kind !== 'call') return;
          // The far end of the call: a second Chromium with a fake camera beyond the bottleneck
          // (in the run's upstream namespace), joined through the lab's signalling origin.
          const wrapper = namespaceChromium(stack, topo.upstreamNs);
          const room = `room-${topo.runId}`;
          labContext.callRoom = room;
          const peer = await startCallPeer({
            callPageUrl: labUrl(labContext, 'www', '/call/'), room, executablePath: wrapper.path,
            chromiumArgs: labChromiumArgs({ hosts, spki: [lab.certs.spki], fakeMedia: true }),
          });
          const peerPid = Number(readFileSync(wrapper.pidFile, 'utf8').trim());
          const peerProc = { kind: 'process' as const, pid: peerPid, startTime: processStartTime(peerPid) ?? '', what: 'call peer chromium' };
          stack.push(peerProc, async () => { await Promise.race([peer.stop(), new Promise((r) => setTimeout(r, 5000))]); await undo(peerProc); });
          say(`call peer joined room ${room}`);
        },
        collect(profileDir, fromSeconds, toSeconds) {
          // The servers' own view (tcp_info / QUIC stats) of this run's connections, kept with it.
          const gtDir = join(profileDir, 'ground-truth');
          mkdirSync(gtDir, { recursive: true });
          for (const o of lab.origins.filter((x) => x.region === region)) {
            const n = extractGroundTruth(o.groundTruth, fromSeconds, toSeconds, runAddr, join(gtDir, `${o.name}.jsonl`));
            if (n === 0) rmSync(join(gtDir, `${o.name}.jsonl`), { force: true });
          }
        },
      };
    },
  };
}
