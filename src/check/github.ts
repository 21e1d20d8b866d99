/**
 * GitHub Actions: workflow-command annotations (an error per failed expectation, a warning per
 * inconclusive or warned one and per drift, each pointing at the line of the expectation) and
 * a Markdown job summary (appended to $GITHUB_STEP_SUMMARY). Written when GITHUB_ACTIONS=true.
 */
import type { CheckReport } from '../results/check.js';
import { formatBytes } from '../session/progress.js';
import { bytesOf, caseMessage, flowsOf, observedText, reportLinkOf } from './format.js';

/** Workflow-command escaping: the message, and property values (which also escape : and ,). */
const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

function command(level: 'error' | 'warning' | 'notice', message: string, props: Record<string, string | number | undefined>): string {
  const p = Object.entries(props).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${escapeProperty(String(v))}`).join(',');
  return `::${level}${p ? ` ${p}` : ''}::${escapeData(message)}`;
}

/** One workflow command per case that did not plainly pass, and per drift. */
export function annotations(r: CheckReport): string[] {
  const out: string[] = [];
  for (const c of r.cases) {
    if (c.verdict === 'pass') continue;
    const level = c.verdict === 'fail' ? 'error' : 'warning';
    const title = `ccbrowse check ${c.verdict}: ${c.scenario} ${c.name} (${c.region})`;
    out.push(command(level, caseMessage(c), { file: c.source.file, line: c.source.line, title }));
  }
  for (const d of r.drift) out.push(command('warning', d.message, { title: `ccbrowse check: ${d.assetType} changed since the baseline` }));
  return out;
}

const ICON = { pass: '✅', warn: '⚠️', fail: '❌', inconclusive: '❔' } as const;

/** A table cell of measured text: no pipes, line breaks, HTML, emphasis or terminal colours (Playwright's call logs) of its own. */
const cell = (s: string) => s.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '').replace(/[\\|*_`[\]]/g, (c) => `\\${c}`).replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r?\n/g, ' ');

/** The job summary: outcome, one row per case, the drift. */
export function markdownSummary(r: CheckReport): string {
  const n = r.counts;
  const head = r.outcome === 'pass' ? '✅ passed' : r.outcome === 'fail' ? '❌ failed' : '❔ inconclusive';
  const lines = [
    `## ccbrowse check: ${head}`,
    '',
    `**${cell(r.name)}** (${r.mode === 'live' ? `measured${r.repeat > 1 ? `, ${r.repeat} runs each` : ''}` : 're-checked from run directories'}): `
      + `${n.pass} passed, ${n.warn} warned, ${n.fail} failed, ${n.inconclusive} inconclusive.`,
    '',
    '| | expectation | region | observed | flows | bytes | verdict |',
    '| --- | --- | --- | --- | ---: | ---: | --- |',
    ...r.cases.map((c) => {
      const link = reportLinkOf(c);
      const verdict = c.verdict === 'pass' ? 'pass' : `**${c.verdict}**: ${cell(c.reason)}`;
      return `| ${ICON[c.verdict]} | ${cell(`${c.scenario}: ${c.name}`)} | ${cell(c.region)} | ${cell(observedText(c))} | ${flowsOf(c)} | ${formatBytes(bytesOf(c))} | ${verdict}${link ? ` ([run](${link}))` : ''} |`;
    }),
  ];
  if (r.baseline) {
    lines.push('', `### Since the baseline`, '', `Baseline: \`${cell(r.baseline.source)}\` (${r.baseline.kind === 'store' ? `results store${r.baseline.asOf ? ` as of ${r.baseline.asOf}` : ''}` : 'an earlier check'}).`, '');
    if (r.drift.length === 0) lines.push('No asset type changed.');
    else lines.push(...r.drift.map((d) => `- ${d.change === 'moved' ? '🔀' : d.change === 'lost' ? '➖' : '➕'} ${cell(d.message)}`));
  }
  return `${lines.join('\n')}\n`;
}
