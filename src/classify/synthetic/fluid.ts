/**
 * Loss-based senders as a small fluid model of one flow through a drop-tail bottleneck:
 * the window grows per the CCA, RTT = base + queue / capacity, and the buffer overflows
 * when the window exceeds BDP + buffer. Reno grows one packet per RTT and halves; CUBIC
 * follows W(t) = C (t - K)^3 + Wmax (with fast convergence and the TCP-friendly floor)
 * and cuts to 0.7. The available capacity wobbles per cycle (cross traffic), so CUBIC's
 * plateau sometimes sits below the overflow point and its convex probe shows.
 */
import type { BifSeries } from '../../trace/types.js';
import { createRng } from '../prng.js';
import { median } from '../stats.js';
import { buildSeries, withPath, type PathOptions } from './common.js';

export interface FluidOptions extends PathOptions {
  bufferBdp: number;
  /** Relative std-dev of the per-cycle capacity wobble. */
  capacityJitter: number;
}

type Cca = 'reno' | 'cubic';

const STEP = 0.001;

function simulate(cca: Cca, o: FluidOptions): { w: Float64Array; rtt: Float64Array } {
  const rng = createRng(o.seed ^ 0x9e3779b9);
  const steps = Math.ceil(o.durationS / STEP) + 1;
  const w = new Float64Array(steps);
  const rttOut = new Float64Array(steps);
  let cap = o.capacityBps;
  const limit = (): number => cap * o.baseRttS * (1 + o.bufferBdp);
  let win = 10 * o.mss;
  let slowStart = true;
  let wMax = 0; // packets
  let epoch = 0;
  let k = 0;
  const beta = cca === 'reno' ? 0.5 : 0.7;
  const c3 = 0.4;
  for (let i = 0; i < steps; i++) {
    const t = i * STEP;
    const rtt = o.baseRttS + Math.max(0, win - cap * o.baseRttS) / cap;
    w[i] = win;
    rttOut[i] = rtt;
    if (win > limit()) {
      // Buffer overflow: multiplicative decrease; a new cycle sees new cross traffic.
      const pkts = win / o.mss;
      if (cca === 'cubic') {
        wMax = pkts < wMax ? (pkts * (1 + beta)) / 2 : pkts;
        k = Math.cbrt((wMax * (1 - beta)) / c3);
        epoch = t;
      }
      win *= beta;
      slowStart = false;
      cap = o.capacityBps * Math.max(0.5, 1 + o.capacityJitter * rng.normal());
      continue;
    }
    if (slowStart) win += (win / rtt) * STEP;
    else if (cca === 'reno') win += (o.mss / rtt) * STEP;
    else {
      const te = t + STEP - epoch;
      const cubic = c3 * (te - k) ** 3 + wMax;
      const friendly = wMax * beta + ((3 * (1 - beta)) / (1 + beta)) * (te / rtt);
      win = Math.max(win, Math.max(cubic, friendly) * o.mss);
    }
  }
  return { w, rtt: rttOut };
}

function fluidSeries(cca: Cca, opts: Partial<FluidOptions>): BifSeries {
  const o: FluidOptions = { bufferBdp: 2, capacityJitter: 0.08, ...withPath(opts), ...opts };
  const { w, rtt } = simulate(cca, o);
  const at = (t: number): number => w[Math.min(w.length - 1, Math.max(0, Math.round(t / STEP)))];
  return buildSeries(o, at, median(rtt));
}

export const renoSeries = (opts: Partial<FluidOptions> = {}): BifSeries => fluidSeries('reno', opts);
export const cubicSeries = (opts: Partial<FluidOptions> = {}): BifSeries => fluidSeries('cubic', opts);
