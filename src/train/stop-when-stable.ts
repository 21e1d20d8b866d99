/**
 * The probe's watcher for `--stop-when-stable` (issue 20): every few seconds the growing capture
 * is traced again (the reader is streaming and tolerates the half-written last record; a
 * 30 s probe capture is ~200 kB, traced in well under a second), the probe's bulk flow is
 * classified with the model's calibration, and the early-stop rule (classify/early-stop.ts)
 * says when its verdict is stable. The probe layer knows nothing of traces: it gets this
 * watcher as a TransferWatch.
 */
import { calibratedFlowVerdict, checkpointOf, checkpointTimes, decideStop, type CheckpointVerdict, type StopDecision, type StopRule } from '../classify/early-stop.js';
import type { Model } from '../classify/index.js';
import type { EarlyStopRecord, TransferWatch } from '../probe/probe.js';
import { withKnownBottleneck } from '../trace/conditions.js';
import { traceFile } from '../trace/index.js';
import { truncateSeries } from '../trace/truncate.js';
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
}

/** The series the probe's flow shows so far, as a dataset entry would hold it (known bottleneck). */
export async function growingSeries(capturePath: string, o: Pick<StableVerdictWatchOptions, 'originIp' | 'protocol' | 'rateKbit'>): Promise<{ series: BifSeries; bytes: number } | null> {
  const tr = await traceFile(capturePath, { clientIps: [PROBE_CLIENT_IP] });
  const f = bulkFlow(tr.flows, o.protocol, { originIp: o.originIp, afterCrossTraffic: false });
  if (!f?.series) return null;
  const s = f.series;
  return { series: s.conditions ? { ...s, conditions: withKnownBottleneck(s.conditions, o.rateKbit) } : s, bytes: f.toClient.payloadBytes };
}

export function stableVerdictWatch(o: StableVerdictWatchOptions): TransferWatch & { decision(): StopDecision } {
  const history: CheckpointVerdict[] = [];
  let decision: StopDecision = { stop: false };
  let bytesSeen = 0;
  // The checkpoints the offline replay judges (bench/trace-length.ts), on the same schedule.
  const schedule = checkpointTimes(o.rule);
  let next = 0;
  return {
    // Looks twice per step: a checkpoint is judged at most about half a step after the capture reached it.
    everySeconds: Math.max(0.5, o.rule.stepSeconds / 2),
    async look(capturePath) {
      if (decision.stop) return true;
      const g = await growingSeries(capturePath, o);
      if (!g) return false;
      bytesSeen = g.bytes;
      const s = g.series;
      const seconds = s.t.length ? s.t[s.t.length - 1] : 0;
      // Each checkpoint the capture has reached is judged on the series cut there, so a look
      // that comes late (a loaded host) judges what the rule's schedule says, not a later
      // trace, and catches up on checkpoints it missed.
      while (next < schedule.length && seconds >= schedule[next] - 1e-9 && !decision.stop) {
        history.push(checkpointOf(schedule[next], calibratedFlowVerdict(truncateSeries(s, schedule[next]), o.model)));
        next++;
        decision = decideStop(history, o.rule);
      }
      return decision.stop;
    },
    decision: () => decision,
    record(): EarlyStopRecord {
      const last = history[history.length - 1];
      const d = decision;
      return {
        rule: { ...o.rule },
        stoppedTransfer: d.stop,
        why: d.stop ? d.why : 'transfer-ended',
        neededSeconds: d.stop ? d.neededSeconds : null,
        label: d.stop ? d.label : last?.label ?? 'Unknown',
        confidence: d.stop ? d.confidence : last?.confidence ?? 0,
        checkpoints: history.map((c) => ({ seconds: c.seconds, label: c.label, confidence: Math.round(c.confidence * 1000) / 1000 })),
        bytesSeen,
      };
    },
  };
}
