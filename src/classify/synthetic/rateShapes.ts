/**
 * Rate-based senders as parametric shapes (they hold a level rather than react to loss,
 * so no fluid model is needed): BBRv1 (ProbeBW 8-phase cycle, ProbeRTT every 10 s to
 * 4 packets), BBRv2 (cruise, ProbeRTT every 5 s to half the BDP), AkamaiCC-like
 * (a fixed level, back-offs every ~15 s), Copa (a symmetric swing every ~5 RTTs).
 */
import type { BifSeries } from '../../trace/types.js';
import { createRng } from '../prng.js';
import { buildSeries, piecewise, withPath, type PathOptions } from './common.js';

/** Exponential start-up: doubling each RTT from 10 packets up to `peak`, then `settle`. */
function startup(knots: Array<[number, number]>, mss: number, rtt: number, peak: number, settle: number): number {
  let t = 0;
  let w = 10 * mss;
  knots.push([0, w]);
  while (w < peak) {
    t += rtt;
    w = Math.min(peak, w * 2);
    knots.push([t, w]);
  }
  t += rtt;
  knots.push([t, settle]);
  return t;
}

export interface BbrV1Options extends PathOptions {
  probeRttEveryS: number;
  /** Start the ProbeBW cycle at this phase (BBR randomises it); default from the seed. */
  startPhase?: number;
}

export function bbrV1Series(opts: Partial<BbrV1Options> = {}): BifSeries {
  const o: BbrV1Options = { probeRttEveryS: 10, ...withPath(opts), ...opts };
  const rng = createRng(o.seed ^ 0x5bd1e995);
  const bdp = o.capacityBps * o.baseRttS;
  const rtt = o.baseRttS;
  const knots: Array<[number, number]> = [];
  let t = startup(knots, o.mss, rtt, 2.5 * bdp, bdp);
  let phase = o.startPhase ?? [0, 2, 3, 4, 5, 6, 7][Math.floor(rng.next() * 7)];
  let nextProbeRtt = o.probeRttEveryS;
  // Inflight at the end of each ProbeBW phase (gain 1.25, then 0.75 drains, then cruise).
  const phaseEnd = [1.25, 0.95, 1, 1, 1, 1, 1, 1];
  while (t < o.durationS) {
    if (t >= nextProbeRtt) {
      knots.push([t + rtt, 4 * o.mss]);
      knots.push([t + rtt + 0.2 + rtt, 4 * o.mss]);
      t += 0.2 + 3 * rtt;
      knots.push([t, bdp]);
      nextProbeRtt = t + o.probeRttEveryS;
      continue;
    }
    t += rtt;
    knots.push([t, phaseEnd[phase] * bdp]);
    phase = (phase + 1) % 8;
  }
  return buildSeries(o, piecewise(knots), rtt * 1.05);
}

export interface BbrV2Options extends PathOptions {
  probeRttEveryS: number;
  /** Occasional ProbeBW UP every 2-3 s (off by default: the thesis's 'cruise'). */
  probeUp: boolean;
}

export function bbrV2Series(opts: Partial<BbrV2Options> = {}): BifSeries {
  const o: BbrV2Options = { probeRttEveryS: 5, probeUp: false, ...withPath(opts), ...opts };
  const rng = createRng(o.seed ^ 0x27d4eb2f);
  const bdp = o.capacityBps * o.baseRttS;
  const rtt = o.baseRttS;
  const cruise = 0.95 * bdp;
  const knots: Array<[number, number]> = [];
  let t = startup(knots, o.mss, rtt, 2.5 * bdp, cruise);
  let nextProbeRtt = o.probeRttEveryS;
  let nextUp = t + 2 + rng.next();
  while (t < o.durationS) {
    if (t >= nextProbeRtt) {
      knots.push([t + rtt, 0.5 * bdp]);
      knots.push([t + rtt + 0.2 + rtt, 0.5 * bdp]);
      t += 0.2 + 3 * rtt;
      knots.push([t, cruise]);
      nextProbeRtt = t + o.probeRttEveryS;
      continue;
    }
    if (o.probeUp && t >= nextUp) {
      knots.push([t + rtt, 1.25 * bdp]);
      t += 3 * rtt;
      knots.push([t, cruise]);
      nextUp = t + 2 + rng.next();
      continue;
    }
    t += rtt;
    knots.push([t, cruise]);
  }
  return buildSeries(o, piecewise(knots), rtt * 1.02);
}

export interface AkamaiOptions extends PathOptions {
  /** The held level in bytes (not derived from the BDP). */
  levelBytes: number;
  backoffEveryS: number;
  /** Level during a back-off, as a fraction of the held level. */
  backoffTo: number;
  backoffHoldS: number;
}

export function akamaiSeries(opts: Partial<AkamaiOptions> = {}): BifSeries {
  const o: AkamaiOptions = { levelBytes: 4000, backoffEveryS: 15, backoffTo: 0.4, backoffHoldS: 1, ...withPath(opts), ...opts };
  const rng = createRng(o.seed ^ 0x165667b1);
  const rtt = o.baseRttS + Math.max(0, o.levelBytes - o.capacityBps * o.baseRttS) / o.capacityBps;
  const knots: Array<[number, number]> = [];
  let t = startup(knots, o.mss, rtt, o.levelBytes, o.levelBytes);
  let next = o.backoffEveryS + rng.uniform(-1, 1);
  while (t < o.durationS) {
    if (t >= next) {
      knots.push([t, o.levelBytes]);
      knots.push([t + rtt, o.backoffTo * o.levelBytes]);
      knots.push([t + rtt + o.backoffHoldS, o.backoffTo * o.levelBytes]);
      t += 2 * rtt + o.backoffHoldS + 0.5;
      knots.push([t, o.levelBytes]);
      next = t + o.backoffEveryS + rng.uniform(-1, 1);
      continue;
    }
    t += rtt;
    knots.push([t, o.levelBytes]);
  }
  return buildSeries(o, piecewise(knots), rtt);
}

export interface CopaOptions extends PathOptions {
  /** Half peak-to-peak swing relative to the mean level. */
  swing: number;
  periodRtts: number;
}

export function copaSeries(opts: Partial<CopaOptions> = {}): BifSeries {
  const o: CopaOptions = { swing: 0.1, periodRtts: 5, ...withPath(opts), ...opts };
  const bdp = o.capacityBps * o.baseRttS;
  const mid = 1.1 * bdp;
  const rtt = o.baseRttS * 1.1;
  const knots: Array<[number, number]> = [];
  let t = startup(knots, o.mss, rtt, mid, mid);
  let up = true;
  while (t < o.durationS) {
    t += (o.periodRtts * rtt) / 2;
    knots.push([t, mid * (1 + (up ? o.swing : -o.swing))]);
    up = !up;
  }
  return buildSeries(o, piecewise(knots), rtt);
}
