/**
 * The live watcher of `run --stop-when-stable` (issue 20): once a second the profile's growing
 * capture is traced again (no bottleneck replay; given the TLS key log as Chromium has written it
 * so far, HTTP/3 flows whose keys are there are judged too, else only TCP flows are: run.ts gives
 * none yet, see there),
 * the flows that matter (activity-stop.ts) are judged at the early-stop rule's checkpoints, the
 * same schedule and rule as `probe --stop-when-stable` (GrowingFlowJudge), and `settled()` tells
 * the scenario's activity it may end. The verdicts the run reports still come from the analysis
 * of the whole capture afterwards; this only decides how long the capture runs.
 */
import { existsSync } from 'node:fs';
import { GrowingFlowJudge, type StopRule } from '../classify/early-stop.js';
import type { Model } from '../classify/model.js';
import { ADDR } from '../net/topology.js';
import type { ActivityEarlyStop } from '../results/schema.js';
import { seriesAtKnownRate } from '../trace/conditions.js';
import { traceFile, type FlowResult } from '../trace/index.js';
import { allSettled, HOLDING, standings, toJudge, type ActivityStopOptions, type FlowStanding, type LiveFlow } from './activity-stop.js';

export interface ActivityWatchOptions extends Omit<ActivityStopOptions, 'floorSeconds'> {
  model: Model;
  /** The early-stop rule; its ceiling is not used (the activity's own length is the ceiling). */
  rule: StopRule;
  /** The profile's bottleneck rate: it sets the BDP, as the run's analysis does. */
  rateKbit: number;
  /** Epoch seconds now (tests judge a recorded capture as if it were still growing). */
  now?: () => number;
}

export interface ActivityWatch {
  everySeconds: number;
  /** Traces the capture so far (with the key log so far) and judges what matters; never ends the look loop itself. */
  look(capturePath: string, keylogPath?: string): Promise<boolean>;
  /** True when, at the last look, no flow held the activity. */
  settled(): boolean;
  /** What run.json keeps (per profile), asked once the activity is over. */
  record(activity: { endedEarly: boolean; seconds: number | null; ceilingSeconds: number; interrupted?: boolean }): ActivityEarlyStop;
}

/** A flow of the capture as the decision sees it; null for flows that carry no window (UDP, no data). */
function liveFlow(f: FlowResult, captureStart: number, nowSeconds: number): LiveFlow | null {
  if (f.kind !== 'tcp' && f.kind !== 'quic') return null;
  const t = f.series?.t;
  // The last bytes-in-flight sample is the last data the server sent; QUIC without keys: its last packet.
  const readExactly = f.kind === 'tcp' || f.bifMethod === 'quic-keylog-exact';
  const traceSeconds = readExactly && t?.length ? t[t.length - 1] : f.durationSeconds;
  if (f.kind === 'tcp' && !t?.length) return null;
  const lastData = captureStart + f.startSeconds + traceSeconds;
  return {
    tuple: f.tuple, serverIp: f.key.serverIp, protocol: f.kind, readExactly: readExactly && !!t?.length, bytesDown: f.toClient.payloadBytes,
    traceSeconds, quietSeconds: Math.max(0, nowSeconds - lastData),
  };
}

export function activityWatch(o: ActivityWatchOptions): ActivityWatch {
  const stopOpts: ActivityStopOptions = { floorSeconds: o.rule.floorSeconds, minBytes: o.minBytes, quietSeconds: o.quietSeconds };
  // Session checkpoints never reach a ceiling: the activity's end is the ceiling.
  const rule: StopRule = { ...o.rule, ceilingSeconds: Number.POSITIVE_INFINITY };
  const judges = new Map<string, GrowingFlowJudge>();
  const stable = new Set<string>();
  // The last look's flows and standings; flows that mattered once stay in the record.
  let last = new Map<string, { flow: LiveFlow; standing: FlowStanding }>();
  // The last look that found nothing holding: what an activity that ended early ended on (looks
  // go on until the browser has closed, and its closing packets make flows look busy again).
  let lastSettled = last;
  const mattered = new Map<string, LiveFlow>();
  let looks = 0;
  let settled = false;
  return {
    everySeconds: Math.max(0.5, rule.stepSeconds / 2),
    async look(capturePath, keylogPath) {
      const keylog = keylogPath && existsSync(keylogPath) ? keylogPath : undefined;
      const tr = await traceFile(capturePath, { clientIps: [ADDR.client, ADDR.client6], keylog });
      const now = o.now?.() ?? Date.now() / 1000;
      const byTuple = new Map(tr.flows.map((f) => [f.tuple, f]));
      const live = tr.flows.map((f) => liveFlow(f, tr.captureStart, now)).filter((f): f is LiveFlow => f !== null);
      for (const f of toJudge(live, standings(live, stable, stopOpts))) {
        const judge = judges.get(f.tuple) ?? judges.set(f.tuple, new GrowingFlowJudge(o.model, rule)).get(f.tuple)!;
        const d = judge.judge(seriesAtKnownRate(byTuple.get(f.tuple)!.series!, o.rateKbit));
        if (d.stop && d.why === 'stable') stable.add(f.tuple);
      }
      const s = standings(live, stable, stopOpts);
      last = new Map(live.map((f) => [f.tuple, { flow: f, standing: s.get(f.tuple)! }]));
      for (const f of live) if (HOLDING.has(s.get(f.tuple)!) || s.get(f.tuple) === 'stable') mattered.set(f.tuple, f);
      looks++;
      settled = allSettled(s);
      if (settled) lastSettled = last;
      return false;
    },
    settled: () => settled,
    record(activity) {
      const view = activity.endedEarly ? lastSettled : last;
      const flows = [...mattered.keys()].map((tuple) => {
        const now = view.get(tuple);
        const f = now?.flow ?? mattered.get(tuple)!;
        const judge = judges.get(tuple);
        const d = judge?.decision();
        return {
          flow: tuple, serverIp: f.serverIp, protocol: f.protocol, bytesDown: f.bytesDown, traceSeconds: round(f.traceSeconds),
          standing: now?.standing ?? 'quiet',
          ...(d?.stop ? { label: d.label, confidence: Math.round(d.confidence * 1000) / 1000, neededSeconds: d.neededSeconds } : {}),
          checkpoints: judge?.checkpoints() ?? [],
        };
      });
      const holding = flows.filter((f) => HOLDING.has(f.standing as FlowStanding)).map((f) => ({ flow: f.flow, standing: f.standing }));
      const why = activity.endedEarly ? (flows.some((f) => f.standing === 'stable') ? 'stable' : 'nothing-held')
        : activity.interrupted ? 'interrupted'
          : activity.seconds === null ? 'no-activity'
            : holding.length ? 'ceiling' : 'activity-ended';
      return {
        rule: { floorSeconds: rule.floorSeconds, stepSeconds: rule.stepSeconds, stableCheckpoints: rule.stableCheckpoints, minConfidence: rule.minConfidence, minBytes: o.minBytes, quietSeconds: o.quietSeconds },
        ceilingSeconds: activity.ceilingSeconds,
        activitySeconds: activity.seconds === null ? null : round(activity.seconds),
        endedActivity: activity.endedEarly,
        why,
        looks,
        holding,
        flows,
      };
    },
  };
}

const round = (x: number) => Math.round(x * 10) / 10;
