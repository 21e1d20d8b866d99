/**
 * The probe's watcher for `--stop-when-stable` (issue 20): every few seconds the growing capture
 * is traced again (the reader is streaming and tolerates the half-written last record; a
 * 30 s probe capture is ~200 kB, traced in well under a second), the probe's bulk flow is
 * classified with the model's calibration, and the early-stop rule (classify/early-stop.ts)
 * says when its verdict is stable. The probe layer knows nothing of traces: it gets this
 * watcher as a TransferWatch.
 */
import { existsSync } from 'node:fs';
import { GrowingFlowJudge, type StopDecision, type StopRule } from '../classify/early-stop.js';
import type { Model } from '../classify/index.js';
import type { EarlyStopRecord, ProbeTarget, TransferWatch } from '../probe/probe.js';
import { seriesAtKnownRate } from '../trace/conditions.js';
import { traceFile } from '../trace/index.js';
import type { BifSeries } from '../trace/types.js';
import { PROBE_CLIENT_IP, bulkFlow } from '../validate/run-dir.js';

export interface StableVerdictWatchOptions {
  model: Model;
  rule: StopRule;
  /** The origin the probe downloads from (its flow is the one judged). */
  originIp: string;
  protocol: 'tcp' | 'quic';
  /** The profile's bottleneck rate: it, not what the flow delivered, sets the BDP (as the datasets do). */
  rateKbit: number;
  /** Epoch seconds now (tests judge a recorded capture as if time had passed). */
  now?: () => number;
}

/**
 * The series the probe's flow shows so far, as a dataset entry would hold it (known bottleneck).
 * An HTTP/3 flow is read exactly with Chromium's TLS key log, which it writes as keys are made
 * (seen within half a second of the handshake), so it can be judged live as a TCP flow is.
 */
export async function growingSeries(capturePath: string, o: Pick<StableVerdictWatchOptions, 'originIp' | 'protocol' | 'rateKbit'>, keylogPath?: string): Promise<{ series: BifSeries; bytes: number } | null> {
  // Without keys (not written yet) a QUIC flow's trace would be Nebby's heuristic: not judged.
  if (o.protocol === 'quic' && !(keylogPath && existsSync(keylogPath))) return null;
  const tr = await traceFile(capturePath, { clientIps: [PROBE_CLIENT_IP], keylog: o.protocol === 'quic' ? keylogPath : undefined });
  const f = bulkFlow(tr.flows, o.protocol, { originIp: o.originIp, afterCrossTraffic: false });
  if (!f?.series || (o.protocol === 'quic' && f.bifMethod !== 'quic-keylog-exact')) return null;
  // What reached the client, near enough: the origin's bytes less those it resent or declared
  // lost (quinn's BBR sends several times what a 200 kbit/s bottleneck delivers).
  const bytes = f.toClient.payloadBytes - (f.series.loss?.lostBytes ?? 0);
  return { series: seriesAtKnownRate(f.series, o.rateKbit), bytes };
}

/** The watcher a probe of this target through this profile gets under `--stop-when-stable` (`probe`, `lab bench`, crawls). */
export function probeWatch(stop: { rule: StopRule; model: Model }, target: ProbeTarget, profile: { rateKbit: number }): TransferWatch & { decision(): StopDecision } {
  return stableVerdictWatch({ ...stop, originIp: target.origin.ip, protocol: target.origin.serve === 'tcp' ? 'tcp' : 'quic', rateKbit: profile.rateKbit });
}

export function stableVerdictWatch(o: StableVerdictWatchOptions): TransferWatch & { decision(): StopDecision } {
  // The checkpoints the offline replay judges (bench/trace-length.ts), on the same schedule.
  const judge = new GrowingFlowJudge(o.model, o.rule);
  let bytesSeen = 0;
  // Made before the transfer starts, so the flow's trace is never longer than the time since:
  // a look before the next checkpoint could be in the trace skips tracing (a QUIC look decrypts
  // the whole capture so far, ~0.2 s of CPU at 20 s; most looks would judge nothing).
  const made = Date.now() / 1000;
  return {
    // Looks twice per step: a checkpoint is judged at most about half a step after the capture reached it.
    everySeconds: Math.max(0.5, o.rule.stepSeconds / 2),
    async look(capturePath, keylogPath) {
      if (judge.decision().stop) return true;
      const next = judge.nextCheckpointSeconds();
      if (next !== null && (o.now?.() ?? Date.now() / 1000) - made < next) return false;
      const g = await growingSeries(capturePath, o, keylogPath);
      if (!g) return false;
      bytesSeen = g.bytes;
      return judge.judge(g.series).stop;
    },
    decision: () => judge.decision(),
    record(): EarlyStopRecord {
      const last = judge.history[judge.history.length - 1];
      const d = judge.decision();
      return {
        rule: { ...o.rule },
        stoppedTransfer: d.stop,
        why: d.stop ? d.why : 'transfer-ended',
        neededSeconds: d.stop ? d.neededSeconds : null,
        label: d.stop ? d.label : last?.label ?? 'Unknown',
        confidence: d.stop ? d.confidence : last?.confidence ?? 0,
        checkpoints: judge.checkpoints(),
        bytesSeen,
      };
    },
  };
}
