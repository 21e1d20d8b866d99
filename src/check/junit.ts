/**
 * JUnit XML, as CI systems read it (Jenkins, GitLab, GitHub test reporters, Azure...): the
 * dialect of the Jenkins xUnit plugin's junit-10.xsd, which tests/unit/check/junit.test.ts
 * validates against. One <testsuite> per scenario and region, one <testcase> per expectation:
 * a failure names the asset type, the expected and observed labels and the run's report page;
 * an inconclusive case is an <error type="inconclusive"> (the check could not decide, which
 * CI should see); a warning passes, with the warning in <system-out>.
 */
import { hostname } from 'node:os';
import type { CheckCase, CheckReport } from '../results/check.js';
import { caseMessage, observedText, reportLinkOf } from './format.js';
import { heldBackConfidence, pointsElsewhere } from './judge.js';
import { labelAllowed, parseLabelSpec } from './labels.js';
import { isAnswer } from './observe.js';

/** XML 1.0 allows tab, LF, CR and from U+0020 on (minus surrogates and U+FFFE/F): drop the rest. */
const INVALID_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xmlText(s: string): string {
  return s.replace(INVALID_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

/** junit-10.xsd's SUREFIRE_TIME: seconds with at most three decimals. */
const seconds = (s: number) => Math.max(0, s).toFixed(3);

function details(c: CheckCase): string {
  const lines = [
    `expected: ${c.expectation.cca.join(' or ')} (minimum confidence ${c.expectation.minConfidence}, a non-answer counts as: ${c.expectation.onNonAnswer})`,
    `observed: ${observedText(c)}`,
    ...c.observed.map((o) => `  ${o.subject}: ${o.label} (${o.kind}, confidence ${o.confidence.toFixed(2)}${o.withheld ? `; the classifier's best ${o.withheld.label} at ${heldBackConfidence(o.withheld.confidence)}, below its ${o.withheld.minAnswer} minimum answer` : ''}), ${o.flows} flow(s), ${o.bytes} bytes, seen in ${o.runsSeen} run(s): ${o.reason}`),
    `reason: ${c.reason}`,
    `written at: ${c.source.file}${c.source.line ? `:${c.source.line}` : ''}`,
    ...c.runs.map((r) => `run ${r.runId} (${r.status}${r.incompleteReason ? `: ${r.incompleteReason}` : ''}): ${r.dir}, report: ${r.reportUrl}`),
  ];
  return lines.join('\n');
}

/** failure's type: the evidence names another controller (an answer, or a held-back best label), or there was no answer. */
function failureType(c: CheckCase): string {
  const x = { cca: c.expectation.cca.map(parseLabelSpec), minConfidence: c.expectation.minConfidence };
  const elsewhere = c.observed.some((o) => (isAnswer(o.kind) && o.confidence >= x.minConfidence && !labelAllowed(x.cca, o.label)) || pointsElsewhere(x, o));
  return elsewhere ? 'unexpected-cca' : 'no-answer';
}

function testcase(c: CheckCase, classname: string): string {
  const open = `    <testcase name="${xmlAttr(c.name)}" classname="${xmlAttr(classname)}" time="${seconds(c.seconds)}">`;
  const body = details(c);
  switch (c.verdict) {
    case 'fail':
      return `${open}\n      <failure message="${xmlAttr(caseMessage(c))}" type="${failureType(c)}">${xmlText(body)}</failure>\n    </testcase>`;
    case 'inconclusive':
      return `${open}\n      <error message="${xmlAttr(caseMessage(c))}" type="inconclusive">${xmlText(body)}</error>\n    </testcase>`;
    case 'warn':
      return `${open}\n      <system-out>${xmlText(`warning: ${caseMessage(c)}\n${body}`)}</system-out>\n    </testcase>`;
    default: {
      const link = reportLinkOf(c);
      return `${open}\n      <system-out>${xmlText(`${c.reason}${link ? `\nreport: ${link}` : ''}`)}</system-out>\n    </testcase>`;
    }
  }
}

/** The report as JUnit XML. */
export function junitXml(r: CheckReport, host = hostname()): string {
  const suites = new Map<string, CheckCase[]>();
  for (const c of r.cases) {
    const k = `${c.scenario}\u0000${c.region}`;
    (suites.get(k) ?? suites.set(k, []).get(k)!).push(c);
  }
  const count = (cs: CheckCase[], v: CheckCase['verdict']) => cs.filter((c) => c.verdict === v).length;
  const total = (cs: CheckCase[]) => cs.reduce((a, c) => a + c.seconds, 0);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlAttr(`ccbrowse check ${r.name}`)}" tests="${r.cases.length}" failures="${count(r.cases, 'fail')}" errors="${count(r.cases, 'inconclusive')}" time="${seconds(total(r.cases))}">`];
  for (const cases of suites.values()) {
    const { scenario, region, site } = cases[0];
    const runs = [...new Set(cases.flatMap((c) => c.runs.map((x) => x.runId)))];
    out.push(`  <testsuite name="${xmlAttr(`${scenario} in ${region}`)}" tests="${cases.length}" failures="${count(cases, 'fail')}" errors="${count(cases, 'inconclusive')}" skipped="0" time="${seconds(total(cases))}" timestamp="${xmlAttr(cases[0].runs[0]?.startedAt ?? r.createdAt)}" hostname="${xmlAttr(host)}" package="ccbrowse.check">`);
    out.push('    <properties>');
    for (const [name, value] of [['scenario', scenario], ['region', region], ['site', site], ['mode', r.mode], ['runs', runs.join(' ')]]) {
      out.push(`      <property name="${name}" value="${xmlAttr(value)}"/>`);
    }
    out.push('    </properties>');
    for (const c of cases) out.push(testcase(c, `ccbrowse.${scenario}.${region}`));
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}
