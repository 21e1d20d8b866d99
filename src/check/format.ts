/**
 * What a check prints for people: the table on stdout (expectation, region, observed label
 * with confidence, flows, bytes, verdict and reason), and the pieces the CI outputs share
 * (a case's observed column, its subject, its one-line message with the report link).
 */
import type { CheckCase, CheckReport } from '../results/check.js';
import { formatBytes } from '../session/progress.js';
import { labelWithConfidence } from './judge.js';

/** "CUBIC 0.81", or per subject "a.example BBRv1 0.84, b.example CUBIC 0.70"; "-" when nothing was seen. */
export function observedText(c: CheckCase): string {
  if (c.observed.length === 0) return '-';
  if (c.observed.length === 1 && (c.observed[0].subject === c.expectation.assetType || c.observed[0].subject === c.expectation.host)) {
    return labelWithConfidence(c.observed[0]);
  }
  return c.observed.map((o) => `${o.subject} ${labelWithConfidence(o)}`).join(', ');
}

export const flowsOf = (c: CheckCase) => c.observed.reduce((a, o) => a + o.flows, 0);
export const bytesOf = (c: CheckCase) => c.observed.reduce((a, o) => a + o.bytes, 0);

/** What the case is about: "video", "host *.cdn.example", "video from *.cdn.example". */
export function subjectOf(c: CheckCase): string {
  const e = c.expectation;
  return e.assetType && e.host ? `${e.assetType} from ${e.host}` : e.assetType ?? `host ${e.host}`;
}

/** The run's report page a reader should open: the newest run judged. */
export function reportLinkOf(c: CheckCase): string | undefined {
  return c.runs.at(-1)?.reportUrl;
}

/** One line: "video in moved: expected BBR, observed CUBIC (0.81) (report: ...)". */
export function caseMessage(c: CheckCase): string {
  const link = reportLinkOf(c);
  return `${subjectOf(c)} in ${c.region}: ${c.reason}${link ? ` (report: ${link})` : ''}`;
}

function columns(head: string[], body: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  return [head, ...body].map((cols) => cols.map((c, i) => c.padEnd(w[i])).join('  ').trimEnd()).join('\n');
}

const VERDICT_TEXT = { pass: 'pass', warn: 'warn', fail: 'FAIL', inconclusive: 'inconclusive' } as const;

/** The table a person reads, then the drift, then the outcome. */
export function checkTable(r: CheckReport): string {
  const rows = r.cases.map((c) => [`${c.scenario}: ${c.name}`, c.region, observedText(c), String(flowsOf(c)), formatBytes(bytesOf(c)), VERDICT_TEXT[c.verdict],
    c.verdict === 'pass' ? '' : c.reason]);
  const out = [columns(['expectation', 'region', 'observed', 'flows', 'bytes', 'verdict', 'reason'], rows)];
  if (r.baseline) {
    out.push('', r.drift.length === 0
      ? `no asset type changed since the baseline (${r.baseline.source})`
      : `changed since the baseline (${r.baseline.source}):\n${r.drift.map((d) => `  ${d.message}`).join('\n')}`);
  }
  const n = r.counts;
  out.push('', `${r.outcome === 'pass' ? 'passed' : r.outcome === 'fail' ? 'FAILED' : 'inconclusive'}: ${n.pass} passed, ${n.warn} warned, ${n.fail} failed, ${n.inconclusive} inconclusive (exit ${r.exitCode})`);
  return out.join('\n');
}
