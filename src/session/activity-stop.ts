/**
 * `run --stop-when-stable` (issue 20): which of a profile's flows must have a stable verdict
 * before its scenario activity may end early, and whether all of them do. Pure: the watcher
 * (activity-watch.ts) feeds it what the growing capture shows at each look.
 *
 * A flow matters when ending the activity now could change the verdict the run reports:
 *  - it is TCP or QUIC (UDP media has no window to read);
 *  - it is still carrying data: something reached the client within the last `quietSeconds`.
 *    A flow that went quiet (a page bundle that finished loading) keeps the trace it has
 *    whether the activity goes on or not, so it holds nothing up;
 *  - it is not a trickle: past the floor with fewer than `minBytes` down, no verdict will come
 *    from it (short or application-limited);
 *  - it is, of its server address's active flows, the one that carried the most bytes: the run's
 *    per-host summary takes each profile's largest flow of a host (summary.ts), and a lab origin
 *    is one address (on the Internet an address may serve several hosts: the largest stands in).
 * Such a flow is settled once the early-stop rule (classify/early-stop.ts) called its verdict
 * stable. An HTTP/3 flow is judged live only when the TLS key log (which Chromium writes as keys
 * are made) lets its trace be read exactly; without it (runs do not give the page's watcher the
 * key log yet: run.ts), while it carries data it holds the activity to its full length.
 */

export interface LiveFlow {
  /** The flow's 5-tuple, as the trace names it (stable while the capture grows). */
  tuple: string;
  serverIp: string;
  protocol: 'tcp' | 'quic';
  /** Its bytes in flight are read exactly: TCP always, QUIC once the key log decrypts it. */
  readExactly: boolean;
  bytesDown: number;
  /** Seconds of trace so far, since the flow's first packet. */
  traceSeconds: number;
  /** Seconds since data last reached the client (wall clock against the capture's timestamps). */
  quietSeconds: number;
}

export interface ActivityStopOptions {
  /** The rule's floor: before it a small flow may still grow. */
  floorSeconds: number;
  /** Past the floor, a flow with fewer bytes down than this is a trickle. */
  minBytes: number;
  /** No data for this long: the flow is over as far as ending the activity goes. */
  quietSeconds: number;
}

/** 6 s of silence: three rule steps, and three times the lab player's 2 s segment (it fetches one when its 12 s buffer drops). */
export const DEFAULT_ACTIVITY_STOP: Omit<ActivityStopOptions, 'floorSeconds'> = { minBytes: 50_000, quietSeconds: 6 };

/** What a flow is to the decision at this look. */
export type FlowStanding =
  | 'stable' // matters, verdict stable
  | 'judging' // matters, read exactly, not stable yet: holds the activity
  | 'not-judged-live' // matters, HTTP/3 without keys: holds the activity while it carries data
  | 'quiet' // carried nothing lately
  | 'trickle' // too few bytes past the floor to be classified
  | 'not-largest'; // another active flow of its address carried more

export const HOLDING: ReadonlySet<FlowStanding> = new Set(['judging', 'not-judged-live']);

/** Each flow's standing, given which flows' verdicts the rule already called stable. */
export function standings(flows: readonly LiveFlow[], stable: ReadonlySet<string>, o: ActivityStopOptions): Map<string, FlowStanding> {
  const out = new Map<string, FlowStanding>();
  const candidates: LiveFlow[] = [];
  for (const f of flows) {
    if (f.quietSeconds >= o.quietSeconds) out.set(f.tuple, 'quiet');
    else if (f.traceSeconds >= o.floorSeconds && f.bytesDown < o.minBytes) out.set(f.tuple, 'trickle');
    else candidates.push(f);
  }
  const largest = new Map<string, LiveFlow>();
  for (const f of candidates) {
    const best = largest.get(f.serverIp);
    if (!best || f.bytesDown > best.bytesDown) largest.set(f.serverIp, f);
  }
  for (const f of candidates) {
    if (largest.get(f.serverIp) !== f) out.set(f.tuple, 'not-largest');
    else if (stable.has(f.tuple)) out.set(f.tuple, 'stable');
    else out.set(f.tuple, f.readExactly ? 'judging' : 'not-judged-live');
  }
  return out;
}

/** The flows that must be judged at this look: those that matter, read exactly, not yet stable. */
export function toJudge(flows: readonly LiveFlow[], s: ReadonlyMap<string, FlowStanding>): LiveFlow[] {
  return flows.filter((f) => s.get(f.tuple) === 'judging');
}

/** True when no flow holds the activity: every flow that matters is stable (or none matters). */
export function allSettled(s: ReadonlyMap<string, FlowStanding>): boolean {
  return [...s.values()].every((x) => !HOLDING.has(x));
}
