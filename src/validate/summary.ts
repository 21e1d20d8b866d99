/** Groups per-run BiF accuracy into (controller, profile, method, truth, alignment) rows and renders a table. */
import type { RunAccuracy } from './run-dir.js';

export interface SummaryRow {
  controller: string;
  profile: string;
  /** BiF method of the trace (tcp-seq-ack, quic-nebby-heuristic, quic-keylog-exact). */
  method: string;
  field: string;
  /** How estimate and truth were aligned (two-sided, shift, counters). */
  alignment: string;
  runs: number;
  samples: number;
  /** Median over runs of the per-run median APE, percent. */
  mape: number;
  /** Sample-weighted share within 5%. */
  within: number;
  withinOneSegment: number;
  /** Sample-weighted share within 5% outside loss recovery. */
  withinOutsideRecovery: number;
}

export function summarise(rows: RunAccuracy[]): SummaryRow[] {
  const groups = new Map<string, RunAccuracy[]>();
  for (const r of rows) {
    const k = `${r.stack}-${r.cca}\t${r.profile}\t${r.bifMethod}\t${r.field}\t${r.alignment ?? 'two-sided'}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const out: SummaryRow[] = [];
  for (const [k, rs] of groups) {
    const [controller, profile, method, field, alignment] = k.split('\t');
    const ok = rs.filter((r) => r.accuracy.samples > 0);
    const n = ok.reduce((s, r) => s + r.accuracy.samples, 0);
    const mapes = ok.map((r) => r.accuracy.mape).sort((x, y) => x - y);
    const mid = mapes.length >> 1;
    out.push({
      controller, profile, method, field, alignment, runs: rs.length, samples: n,
      mape: mapes.length === 0 ? Number.NaN : mapes.length % 2 ? mapes[mid] : (mapes[mid - 1] + mapes[mid]) / 2,
      within: n ? ok.reduce((s, r) => s + r.accuracy.within * r.accuracy.samples, 0) / n : Number.NaN,
      withinOutsideRecovery: (() => {
        const m = ok.reduce((s, r) => s + r.accuracy.outsideRecovery.samples, 0);
        return m ? ok.reduce((s, r) => s + (r.accuracy.outsideRecovery.samples ? r.accuracy.outsideRecovery.within * r.accuracy.outsideRecovery.samples : 0), 0) / m : Number.NaN;
      })(),
      withinOneSegment: n ? ok.reduce((s, r) => s + r.accuracy.withinOneSegment * r.accuracy.samples, 0) / n : Number.NaN,
    });
  }
  return out.sort((x, y) => x.controller.localeCompare(y.controller) || x.profile.localeCompare(y.profile) || x.method.localeCompare(y.method)
    || x.field.localeCompare(y.field) || x.alignment.localeCompare(y.alignment));
}

const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : '-');

export function accuracyTable(rows: SummaryRow[]): string {
  const lines = [
    '| controller | profile | BiF method | ground truth | alignment | runs | samples | MAPE | within 5% | within 1 MSS | within 5% outside recovery |',
    '| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    lines.push(`| ${r.controller} | ${r.profile} | ${r.method} | ${r.field} | ${r.alignment} | ${r.runs} | ${r.samples} | ${Number.isFinite(r.mape) ? r.mape.toFixed(2) : '-'}% | ${pct(r.within)} | ${pct(r.withinOneSegment)} | ${pct(r.withinOutsideRecovery)} |`);
  }
  // Pooled rows per protocol, method, truth and alignment: the figures the targets are stated in.
  const pools = new Map<string, SummaryRow[]>();
  for (const r of rows) {
    const k = `${r.controller.startsWith('tcp-') ? 'all TCP' : `all ${r.controller.split('-')[0]}`}\t${r.method}\t${r.field}\t${r.alignment}`;
    pools.set(k, [...(pools.get(k) ?? []), r]);
  }
  for (const [k, rs] of [...pools].sort((x, y) => x[0].localeCompare(y[0]))) {
    const [name, method, field, alignment] = k.split('\t');
    const n = rs.reduce((s, r) => s + r.samples, 0);
    const w = n ? rs.reduce((s, r) => s + (r.samples ? r.within * r.samples : 0), 0) / n : Number.NaN;
    const w1 = n ? rs.reduce((s, r) => s + (r.samples ? r.withinOneSegment * r.samples : 0), 0) / n : Number.NaN;
    lines.push(`| **${name}** | both | ${method} | ${field} | ${alignment} | ${rs.reduce((s, r) => s + r.runs, 0)} | ${n} | | **${pct(w)}** | ${pct(w1)} | |`);
  }
  return lines.join('\n');
}
