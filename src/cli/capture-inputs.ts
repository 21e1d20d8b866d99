/**
 * What a path given to `classify` or `trace` stands for: a capture file, or a run directory
 * (a probe's, or one profile of a scenario run) that brings its capture, key log, client
 * address, bottleneck and the host's disturbance. Light on purpose: `trace` loads this, not
 * the classifier.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { HostDisturbance } from '../classify/disturbance.js';
import { bottleneckModelOf } from '../shaper/bottleneck-model.js';
import type { Profile } from '../shaper/profile.js';
import type { BottleneckModel } from '../trace/quic-model.js';
import type { ClassifyCaptureOptions } from './classifyCapture.js';

/** The capture, key log, client and bottleneck a path stands for (a file, or a probe run directory). */
export function captureInputs(path: string, o: ClassifyCaptureOptions): { pcap: string; keylog?: string; clientIps?: string[]; bottleneck?: BottleneckModel; rateKbit?: number; disturbance?: HostDisturbance } {
  const known = o.bottleneck ? { rateKbit: o.bottleneck.rateKbit } : {};
  if (!(existsSync(path) && statSync(path).isDirectory())) return { pcap: path, keylog: o.keylog, clientIps: o.clientIps, bottleneck: o.bottleneck, ...known };
  let { clientIps, bottleneck } = o;
  let rateKbit = o.bottleneck?.rateKbit;
  let disturbance: HostDisturbance | undefined;
  const pj = join(path, 'probe.json');
  if (existsSync(pj)) {
    const probe = JSON.parse(readFileSync(pj, 'utf8')) as { clientAddress?: string; profile?: Profile; disturbance?: HostDisturbance };
    if (!clientIps && probe.clientAddress) clientIps = [probe.clientAddress];
    // Its profile as applied (cross-traffic probes ran a shared queue), unless --profile said otherwise.
    if (!o.explicitProfile && probe.profile?.rateKbit !== undefined) {
      bottleneck = bottleneckModelOf(probe.profile);
      rateKbit = probe.profile.rateKbit;
    }
    disturbance = probe.disturbance;
  }
  const ownKeylog = join(path, 'keylog.txt');
  const keylog = o.keylog ?? (existsSync(ownKeylog) ? ownKeylog : undefined);
  const pcap = existsSync(join(path, 'capture.pcap')) ? join(path, 'capture.pcap') : existsSync(join(path, 'capture.pcap.gz')) ? join(path, 'capture.pcap.gz') : join(path, 'capture.pcap');
  return { pcap, keylog, clientIps, bottleneck, ...(rateKbit ? { rateKbit } : {}), ...(disturbance ? { disturbance } : {}) };
}
