/**
 * What CI reads of a check: JUnit XML valid against junit-10.xsd (the Jenkins xUnit plugin's
 * schema, the dialect Jenkins, GitLab and the GitHub test reporters read), validated with
 * xmllint (libxml2, Debian's libxml2-utils: the reference XSD 1.0 validator, no npm
 * dependency, its own process); GitHub Actions annotations; the Markdown job summary (a
 * snapshot); and the table on stdout.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { annotations, markdownSummary } from '../../../src/check/github.js';
import { checkTable } from '../../../src/check/format.js';
import { junitXml } from '../../../src/check/junit.js';
import { buildCheckReport } from '../../../src/check/report.js';
import type { Baseline } from '../../../src/check/baseline.js';
import { expectation, plannedScenario, run } from './helpers.js';

const XSD = resolve('build/junit-10.xsd');

/** A check with every verdict, two regions, a host pattern, awkward characters, and drift. */
function sampleReport() {
  const s = plannedScenario([
    expectation({ id: 'lab-vod video is BBR', name: 'video is BBR', source: { file: 'checks/cdn.ts', line: 9 } }),
    expectation({ id: 'lab-vod page', name: 'page assets <CUBIC> & "friends"', assetType: 'script', cca: ['CUBIC'], onNonAnswer: 'warn', source: { file: 'checks/cdn.ts', line: 10 } }),
    expectation({ id: 'lab-vod cdn', name: '*.cdn hosts are AIMD or max-probing', host: '*.lab.ccb.test', cca: ['AIMD', 'max-probing'], onNonAnswer: 'retry', source: { file: 'checks/cdn.ts', line: 11 } }),
  ]);
  const good = {
    scenario: s, region: 'good', seconds: 120,
    runs: [run('2025-06-01-lab-vod-a1', { region: 'good', types: { video: { label: 'BBRv1', confidence: 0.84, bytes: 1_340_000 }, script: { label: 'CUBIC', confidence: 0.71 } }, hosts: { 'www.lab.ccb.test': { label: 'CUBIC', confidence: 0.7 } } })],
  };
  const moved = {
    scenario: s, region: 'moved', seconds: 180,
    runs: [
      run('2025-06-01-lab-vod-b1', { region: 'moved', types: { video: { label: 'CUBIC', confidence: 0.81 }, script: { label: 'Short flow', reason: 'only 3.1 RTTs after slow start' } } }),
      run('2025-06-01-lab-vod-b2', { region: 'moved', status: 'incomplete', incompleteReason: 'nebby-50: navigation-failed: timeout 5000 ms | net::ERR_TIMED_OUT', types: { video: { label: 'CUBIC', confidence: 0.79 } } }),
    ],
  };
  const baseline: Baseline = {
    source: 'checks/last-week.json', kind: 'check', asOf: null,
    entries: [
      { site: 'www.lab.ccb.test', region: 'moved', assetType: 'video', label: 'BBRv1', kind: 'cca', at: '2025-05-25T10:00:00.000Z' },
      { site: 'www.lab.ccb.test', region: 'good', assetType: 'video', label: 'BBRv1', kind: 'cca' },
      { site: 'www.lab.ccb.test', region: 'moved', assetType: 'script', label: 'CUBIC', kind: 'cca' },
    ],
  };
  return buildCheckReport({
    plan: { name: 'cdn expectations', inputs: ['checks/cdn.ts'], scenarios: [s] }, mode: 'live', regions: ['good', 'moved'], repeat: 1,
    measurements: [good, moved], baseline, reportBase: 'https://qa.example/ccb-report/', now: new Date('2025-06-01T12:00:00Z'),
  });
}

function xmllint(xml: string): { code: number | null; err: string } {
  // The document on stdin: nothing left behind in /tmp.
  const r = spawnSync('xmllint', ['--noout', '--schema', XSD, '-'], { input: xml, encoding: 'utf8' });
  return { code: r.status, err: r.stderr };
}

describe('JUnit XML', () => {
  const report = sampleReport();
  const xml = junitXml(report, 'ci-runner-1');

  it('the schema and the validator are there (./setup.sh fetches junit-10.xsd and installs xmllint)', () => {
    expect(existsSync(XSD), `${XSD} missing: run ./setup.sh`).toBe(true);
    expect(() => execFileSync('xmllint', ['--version'], { stdio: 'ignore' })).not.toThrow();
  });

  it('validates against junit-10.xsd', () => {
    const r = xmllint(xml);
    expect(r.err).toMatch(/validates/);
    expect(r.code).toBe(0);
  });

  it('the validator does refuse a document that breaks the schema (the check above can fail)', () => {
    const r = xmllint(xml.replace('<testcase name=', '<testcase title='));
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/name.*required|not allowed/);
  });

  it('one test case per expectation and region; a failure names the asset type, expected and observed labels and the run page', () => {
    expect(xml.match(/<testcase /g)).toHaveLength(6);
    expect(xml.match(/<testsuite /g)).toHaveLength(2);
    expect(xml).toContain('<testsuites name="ccbrowse check cdn expectations" tests="6" failures="1" errors="1"');
    const failure = /<failure message="([^"]*)" type="unexpected-cca">/.exec(xml);
    expect(failure?.[1]).toContain('video in moved: expected BBR, observed CUBIC (0.80)');
    expect(failure?.[1]).toContain('report: https://qa.example/ccb-report/sites/www.lab.ccb.test-');
    expect(failure?.[1]).toContain('.html?run=2025-06-01-lab-vod-b2');
    // Inconclusive is an error CI shows, with why: nothing matched the host pattern in "moved".
    expect(xml).toMatch(/<error message="host \*\.lab\.ccb\.test in moved: no host \*\.lab\.ccb\.test seen in moved after 2 run\(s\) \(nebby-50: navigation-failed: timeout 5000 ms \| net::ERR_TIMED_OUT\)[^"]*" type="inconclusive">/);
    // A warning passes, with the warning in its output; special characters are escaped.
    expect(xml).toContain('name="page assets &lt;CUBIC&gt; &amp; &quot;friends&quot;"');
    expect(xml).toMatch(/<system-out>warning: script in moved: no answer, counted as a warning \(Short flow: only 3\.1 RTTs/);
  });

  it("a label held back below the classifier's minimum answer is the observed label of a failure (type unexpected-cca) and of the table", () => {
    const s = plannedScenario([expectation({ cca: ['BBRv1'] })]);
    const runs = [run('r1', { region: 'moved', types: { video: { label: 'Unknown', reason: 'low confidence: CUBIC would be right about 79 times in 100', withheld: { label: 'CUBIC', confidence: 0.79 } } } })];
    const r = buildCheckReport({ plan: { name: 'cdn', inputs: ['checks/cdn.ts'], scenarios: [s] }, mode: 'live', regions: ['moved'], repeat: 1,
      measurements: [{ scenario: s, region: 'moved', runs, seconds: 60 }], reportBase: 'https://qa.example/r/' });
    const x = junitXml(r, 'ci');
    expect(xmllint(x).code).toBe(0);
    expect(x).toMatch(/<failure message="video in moved: expected BBRv1, observed CUBIC \(0\.79, below the classifier's 0\.8 minimum answer\) \(report: [^"]*" type="unexpected-cca">/);
    expect(x).toContain("video: Unknown (unknown, confidence 0.00; the classifier's best CUBIC at 0.79, below its 0.8 minimum answer)");
    expect(checkTable(r).split('\n')[1]).toMatch(/^lab-vod: video is BBR\s+moved\s+CUBIC 0\.79 \(below the 0\.8 minimum answer\)\s+2\s+400 kB\s+FAIL\s+expected BBRv1, observed CUBIC/);
  });

  it('control characters from measured strings never make the file invalid', () => {
    const r = sampleReport();
    r.cases[0].reason = 'odd \u0001 bytes \u001b[31m from a site';
    expect(xmllint(junitXml(r)).code).toBe(0);
  });
});

describe('GitHub Actions', () => {
  const report = sampleReport();

  it('annotations: an error per failure at its line, warnings for inconclusive, warned and drift; escaped', () => {
    const a = annotations(report);
    expect(a[0]).toBe('::error file=checks/cdn.ts,line=9,title=ccbrowse check fail%3A lab-vod video is BBR (moved)::video in moved: expected BBR, observed CUBIC (0.80) (report: https://qa.example/ccb-report/sites/'
      + `${report.cases[3].runs[1].reportUrl.split('/sites/')[1]})`);
    expect(a.filter((l) => l.startsWith('::warning'))).toHaveLength(4);
    expect(a.at(-1)).toBe('::warning title=ccbrowse check%3A video changed since the baseline::video moved from BBRv1 to CUBIC in moved');
    expect(a.every((l) => !l.includes('\n'))).toBe(true);
  });

  it('the Markdown job summary (snapshot)', async () => {
    await expect(markdownSummary(report)).toMatchFileSnapshot('./__snapshots__/check-summary.md');
  });
});

describe('the table', () => {
  it('expectation, region, observed (label, confidence), flows, bytes, verdict, reason; drift; the outcome', () => {
    const t = checkTable(sampleReport()).split('\n');
    expect(t[0]).toMatch(/^expectation\s+region\s+observed\s+flows\s+bytes\s+verdict\s+reason$/);
    expect(t[1]).toMatch(/^lab-vod: video is BBR\s+good\s+BBRv1 0\.84\s+2\s+1\.34 MB\s+pass$/);
    expect(t.find((l) => l.includes('moved') && l.includes('video is BBR'))).toMatch(/CUBIC 0\.80\s+4\s+800 kB\s+FAIL\s+expected BBR, observed CUBIC \(0\.80\)/);
    expect(t).toContain('  video moved from BBRv1 to CUBIC in moved');
    expect(t.at(-1)).toBe('FAILED: 3 passed, 1 warned, 1 failed, 1 inconclusive (exit 1)');
  });
});
