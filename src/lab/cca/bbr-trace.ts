/**
 * Reading a BBR-family sender's phases out of its own tcp_info trace (ccb-bulk samples):
 * the pacing rate it set (ProbeBW's gain cycle) and the window it set (ProbeRTT's dips).
 * Pure functions, used to validate the lab's BBRv2/BBRv3 against kernel BBRv1.
 *
 * The pacing gain of a sample is its pacing rate over the cruise rate, the median pacing
 * rate after Startup: BBR paces at 1.0 x its bandwidth estimate most of the time, so the
 * median is that estimate (less the 1% margin) and the ratios are the gains it applied.
 */
import { median, type TcpInfoSample } from './tcpinfo.js';

/** Samples after Startup and Drain: from the first time ssthresh is finite (BBR sets it
 * to the BDP when Startup ends) plus `settleUs`, or after `fallbackUs`. */
export function steadySamples(samples: readonly TcpInfoSample[], settleUs = 500_000, fallbackUs = 1_500_000): TcpInfoSample[] {
  const first = samples.find((s) => s.ssthresh < 0x7fffffff && s.ssthresh > 0);
  const from = first ? first.tUs + settleUs : fallbackUs;
  return samples.filter((s) => s.tUs >= from);
}

/** Median pacing rate over the steady samples (bytes/s): 0.99 x the bandwidth estimate. */
export function cruiseRate(samples: readonly TcpInfoSample[]): number {
  return median(steadySamples(samples).map((s) => s.pacingRateBps).filter((r) => r > 0 && r < 1e15));
}

/** A stretch of consecutive samples paced at a gain above (probe) or below (drain) cruise. */
export interface GainEpisode {
  tStartUs: number;
  tEndUs: number;
  /** Median gain over the episode's samples. */
  gain: number;
  samples: number;
}

/**
 * Stretches of the steady trace whose pacing gain is >= `above` (ProbeBW_UP, v1's 1.25
 * phase) or <= `below` (ProbeBW_DOWN, v1's 0.75 phase). A gap of up to `gapUs` between
 * qualifying samples does not split a stretch (sampling jitter).
 */
export function gainEpisodes(samples: readonly TcpInfoSample[], opts: { above?: number; below?: number; gapUs?: number }): GainEpisode[] {
  const steady = steadySamples(samples);
  const cruise = cruiseRate(samples);
  if (!(cruise > 0)) return [];
  const gapUs = opts.gapUs ?? 25_000;
  const hit = (s: TcpInfoSample) => {
    const g = s.pacingRateBps / cruise;
    return (opts.above !== undefined && g >= opts.above) || (opts.below !== undefined && g <= opts.below);
  };
  const out: GainEpisode[] = [];
  let cur: TcpInfoSample[] = [];
  const flush = () => {
    if (cur.length) {
      out.push({ tStartUs: cur[0].tUs, tEndUs: cur[cur.length - 1].tUs, gain: median(cur.map((s) => s.pacingRateBps / cruise)), samples: cur.length });
    }
    cur = [];
  };
  for (const s of steady) {
    if (!hit(s)) continue;
    if (cur.length && s.tUs - cur[cur.length - 1].tUs > gapUs) flush();
    cur.push(s);
  }
  flush();
  return out;
}

/** Intervals between consecutive episode starts (us). */
export function intervalsUs(episodes: readonly { tStartUs: number }[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < episodes.length; i++) out.push(episodes[i].tStartUs - episodes[i - 1].tStartUs);
  return out;
}

/** A ProbeRTT episode: cwnd held far below its usual level for a while. */
export interface WindowDip {
  /** First and last sample inside the dip: the dip lasted at least tEndUs - tStartUs. */
  tStartUs: number;
  tEndUs: number;
  /**
   * The samples just outside this run of low-window samples (its own ends at the trace's edges):
   * the run lasted less than tAfterUs - tBeforeUs. WHY both: the sampler runs every 10 ms on a
   * shared host, and a stall of its own at either edge shortens what it saw of a dip by the stall.
   * A sample in loss recovery also ends a run, so one ProbeRTT can show as two runs.
   */
  tBeforeUs: number;
  tAfterUs: number;
  /** The trace ended inside the dip: its length is a lower bound, not the dip's own. */
  cutByTraceEnd: boolean;
  /** Smallest cwnd in the dip (packets). */
  cwndMin: number;
  /** Median cwnd of the steady trace (the level it dipped from). */
  cwndTypical: number;
}

/**
 * ProbeRTT dips: runs of steady samples with cwnd <= `fraction` x the steady median cwnd
 * lasting at least `minUs` (ProbeRTT holds its window >= 200 ms), outside loss recovery
 * (a recovery cut is not a ProbeRTT).
 */
export function windowDips(samples: readonly TcpInfoSample[], opts: { fraction?: number; minUs?: number } = {}): WindowDip[] {
  const steady = steadySamples(samples);
  const typical = median(steady.map((s) => s.cwnd));
  const limit = (opts.fraction ?? 0.6) * typical;
  const minUs = opts.minUs ?? 120_000;
  const out: WindowDip[] = [];
  let cur: TcpInfoSample[] = [];
  let before: TcpInfoSample | undefined;
  const flush = (after: TcpInfoSample | undefined) => {
    if (cur.length && cur[cur.length - 1].tUs - cur[0].tUs >= minUs) {
      out.push({
        tStartUs: cur[0].tUs, tEndUs: cur[cur.length - 1].tUs,
        tBeforeUs: (before ?? cur[0]).tUs, tAfterUs: (after ?? cur[cur.length - 1]).tUs,
        cutByTraceEnd: after === undefined,
        cwndMin: Math.min(...cur.map((s) => s.cwnd)), cwndTypical: typical,
      });
    }
    cur = [];
  };
  for (const s of steady) {
    if (s.cwnd <= limit && s.caState < 2) cur.push(s);
    else {
      flush(s);
      before = s;
    }
  }
  flush(undefined);
  return out;
}

/** Bandwidth-delay product in packets: cruise pacing rate / 0.99 x min RTT / MSS. */
export function bdpPackets(samples: readonly TcpInfoSample[]): number {
  const steady = steadySamples(samples);
  // tcp_info min_rtt is the kernel's windowed minimum: its median ignores a stray early sample.
  const minRtt = median(steady.map((s) => s.minRttUs).filter((x) => x > 0));
  const mss = steady[0]?.mss || 1448;
  return ((cruiseRate(samples) / 0.99) * (minRtt / 1e6)) / mss;
}

/**
 * Times at which the kernel's minimum RTT (tcp_info min_rtt) fell: each is a new minimum
 * that restarts BBR's min-RTT clock, so the next ProbeRTT is due a full window later
 * (10 s for BBRv1, 5 s for BBRv2/v3). The first sample counts as one.
 */
export function minRttDecreases(samples: readonly TcpInfoSample[]): number[] {
  const out: number[] = [];
  let min = Infinity;
  for (const s of samples) {
    if (s.minRttUs > 0 && s.minRttUs < min) {
      min = s.minRttUs;
      out.push(s.tUs);
    }
  }
  return out;
}

/**
 * For each ProbeRTT dip, how long after its clock started it came: the clock starts at
 * the last new minimum RTT or at the end of the previous dip (BBR restarts it when
 * ProbeRTT ends), whichever is later. Also the time the next dip is due after the last
 * one (or after the last new minimum): `dueUs`.
 */
export function probeRttDelays(samples: readonly TcpInfoSample[], dips: readonly WindowDip[], periodUs: number): { delaysUs: number[]; dueUs: number } {
  const mins = minRttDecreases(samples);
  const clockAt = (t: number, prevDipEnd: number) => Math.max(prevDipEnd, ...mins.filter((m) => m < t));
  const delaysUs: number[] = [];
  let prevEnd = 0;
  for (const d of dips) {
    delaysUs.push(d.tStartUs - clockAt(d.tStartUs, prevEnd));
    prevEnd = d.tEndUs;
  }
  const end = samples.length ? samples[samples.length - 1].tUs : 0;
  return { delaysUs, dueUs: clockAt(end, prevEnd) + periodUs };
}
