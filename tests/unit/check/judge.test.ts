/**
 * The check's verdicts, on synthetic runs: labels and families, confidence, what a non-answer
 * counts as (and whose it is: the measurement's never fails the service), nothing observed,
 * votes over repeats, host patterns, and the exit code.
 */
import { describe, expect, it } from 'vitest';
import { heldBackConfidence, judge, labelWithConfidence, overall } from '../../../src/check/judge.js';
import { knownFamilies, labelAllowed, parseLabelSpec } from '../../../src/check/labels.js';
import { observe } from '../../../src/check/observe.js';
import { requireClassifyingProfile } from '../../../src/check/plan.js';
import { buildCheckReport, judgeMeasurement } from '../../../src/check/report.js';
import { expectation, plannedScenario, run } from './helpers.js';

const verdictOf = (x: ReturnType<typeof expectation>, runs: ReturnType<typeof run>[], canRetry = false) => judge(x, 'sg', observe(x, runs), runs, canRetry);

describe('labels', () => {
  it('a family matches its versions, an exact label only itself, names are case-insensitive', () => {
    const bbr = [parseLabelSpec('bbr')];
    expect(bbr[0]).toEqual({ name: 'BBR', family: true });
    for (const l of ['BBRv1', 'BBRv2', 'BBRv3', 'BBR (other version)']) expect(labelAllowed(bbr, l), l).toBe(true);
    expect(labelAllowed(bbr, 'CUBIC')).toBe(false);
    const v3 = [parseLabelSpec('BBRv3')];
    expect(labelAllowed(v3, 'BBRv3')).toBe(true);
    expect(labelAllowed(v3, 'BBRv1')).toBe(false);
    expect(labelAllowed([parseLabelSpec('cubic')], 'CUBIC')).toBe(true);
  });

  it('design families group the loss-based controllers', () => {
    expect(knownFamilies()).toEqual(expect.arrayContaining(['BBR', 'AIMD', 'max-probing']));
    const aimd = [parseLabelSpec('AIMD')];
    expect(labelAllowed(aimd, 'NewReno')).toBe(true);
    expect(labelAllowed(aimd, 'Westwood')).toBe(true);
    expect(labelAllowed(aimd, 'CUBIC')).toBe(false);
    expect(labelAllowed([parseLabelSpec('max-probing')], 'CUBIC')).toBe(true);
  });

  it('refuses unknown names and non-answers, saying what is allowed', () => {
    expect(() => parseLabelSpec('BBRv4')).toThrow(/unknown label "BBRv4".*BBR.*CUBIC/);
    expect(() => parseLabelSpec('Unknown')).toThrow(/non-answer.*onNonAnswer/);
  });
});

describe('an expectation in a region', () => {
  it('passes on an allowed answer, fails on another controller naming expected and observed', () => {
    expect(verdictOf(expectation(), [run('r1', { types: { video: { label: 'BBRv1', confidence: 0.84 } } })])).toEqual({ verdict: 'pass', reason: 'BBRv1 (0.84) is BBR' });
    expect(verdictOf(expectation(), [run('r1', { types: { video: { label: 'CUBIC', confidence: 0.77 } } })])).toEqual({ verdict: 'fail', reason: 'expected BBR, observed CUBIC (0.77)' });
  });

  it('an answer below the minimum confidence is a non-answer', () => {
    const runs = [run('r1', { types: { video: { label: 'BBRv1', confidence: 0.3 } } })];
    const j = verdictOf(expectation({ minConfidence: 0.5 }), runs);
    expect(j.verdict).toBe('fail');
    expect(j.reason).toMatch(/no answer \(BBRv1 at confidence 0\.30, below the minimum 0\.50\)/);
    expect(verdictOf(expectation({ minConfidence: 0.2 }), runs).verdict).toBe('pass');
  });

  it('a non-answer of the service counts as the rule says: fail, warn, retry (then inconclusive)', () => {
    const runs = [run('r1', { types: { video: { label: 'Unknown', reason: 'profiles disagree: BBRv1 vs CUBIC' } } })];
    expect(verdictOf(expectation({ onNonAnswer: 'fail' }), runs)).toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/profiles disagree/) });
    expect(verdictOf(expectation({ onNonAnswer: 'warn' }), runs).verdict).toBe('warn');
    expect(verdictOf(expectation({ onNonAnswer: 'retry' }), runs, true).verdict).toBe('retry');
    expect(verdictOf(expectation({ onNonAnswer: 'retry' }), runs, false)).toMatchObject({ verdict: 'inconclusive', reason: expect.stringMatching(/no answer after 1 run/) });
  });

  it("the measurement's non-answer (outside training, disturbed host) is inconclusive, never a failure, with its reason", () => {
    const disturbed = [run('r1', { types: { video: { label: 'Unknown', profiles: { 'nebby-50': 'host-disturbed', 'nebby-100': 'host-disturbed' } } } })];
    const j = verdictOf(expectation({ onNonAnswer: 'fail' }), disturbed);
    expect(j.verdict).toBe('inconclusive');
    expect(j.reason).toMatch(/could not judge it.*stalled the bottleneck for 90 ms/);
    // A disturbed host is transient: a retry rule measures again.
    expect(verdictOf(expectation({ onNonAnswer: 'retry' }), disturbed, true).verdict).toBe('retry');
    // Conditions outside the model's training stay so: measuring again would not help.
    const outside = [run('r1', { types: { video: { label: 'Unknown', profiles: { 'nebby-50': 'outside-training' } } } })];
    const o = verdictOf(expectation({ onNonAnswer: 'retry' }), outside, true);
    expect(o.verdict).toBe('inconclusive');
    expect(o.reason).toMatch(/would not change it.*outside the trained conditions/);
    // One profile judged and said nothing: the service's non-answer, so it fails under 'fail'.
    const mixed = [run('r1', { types: { video: { label: 'Short flow', profiles: { 'nebby-50': 'host-disturbed', 'nebby-100': 'judged' } } } })];
    expect(verdictOf(expectation({ onNonAnswer: 'fail' }), mixed).verdict).toBe('fail');
    // A profile not for classification is the measurement's too.
    const notFor = [run('r1', { notForClassification: ['nebby-50'], types: { video: { label: 'Unknown' } } })];
    expect(verdictOf(expectation(), notFor)).toMatchObject({ verdict: 'inconclusive', reason: expect.stringMatching(/not for classification/) });
  });

  it('nothing observed is inconclusive, never a pass, and says why (the run never answered)', () => {
    const runs = [run('r1', { status: 'incomplete', incompleteReason: 'nebby-50: navigation-failed: net::ERR_NAME_NOT_RESOLVED' })];
    for (const onNonAnswer of ['fail', 'warn', 'retry'] as const) {
      const j = verdictOf(expectation({ onNonAnswer }), runs);
      expect(j.verdict, onNonAnswer).toBe('inconclusive');
      expect(j.reason).toMatch(/no video seen in sg after 1 run\(s\) \(nebby-50: navigation-failed/);
    }
    expect(verdictOf(expectation({ onNonAnswer: 'retry' }), runs, true).verdict).toBe('retry');
    expect(verdictOf(expectation(), []).reason).toBe('no run of the scenario in sg');
  });

  it('a host that never answered is inconclusive, the reason naming the host and asset type: no flow answered', () => {
    const unanswered: Array<{ host: string; assetType: string; requests: number; perProfile: Record<string, string[]> }> = [
      { host: 'media.lab.ccb.test', assetType: 'video', requests: 2, perProfile: { 'nebby-50': ['net::ERR_ABORTED'], 'nebby-100': ['net::ERR_ABORTED'] } },
      { host: 'img.lab.ccb.test', assetType: 'image', requests: 1, perProfile: { 'nebby-50': ['net::ERR_TIMED_OUT'] } },
    ];
    const runs = [run('r1', { status: 'incomplete', incompleteReason: 'nebby-50: steps-failed: no response', unanswered })];
    for (const onNonAnswer of ['fail', 'warn'] as const) {
      const j = verdictOf(expectation({ onNonAnswer }), runs);
      expect(j.verdict, onNonAnswer).toBe('inconclusive');
      expect(j.reason).toBe('no flow answered for video in sg after 1 run(s): 2 request(s) to media.lab.ccb.test without a response (net::ERR_ABORTED) (nebby-50: steps-failed: no response)');
    }
    const byHost = verdictOf(expectation({ host: 'img.*' }), runs);
    expect(byHost).toMatchObject({ verdict: 'inconclusive', reason: expect.stringMatching(/^no flow answered for host img\.\* in sg after 1 run\(s\): 1 request\(s\) to img\.lab\.ccb\.test \(image\) without a response \(net::ERR_TIMED_OUT\)/) });
    // A host that answered other types is not named for this one.
    expect(verdictOf(expectation({ assetType: 'audio' }), runs).reason).toMatch(/^no audio seen in sg/);
  });

  it('repeats vote: an answer outvotes non-answers, a tie is no answer', () => {
    const x = expectation();
    const three = [
      run('r1', { types: { video: { label: 'BBRv1', confidence: 0.8 } } }),
      run('r2', { types: { video: { label: 'Unknown', profiles: { 'nebby-50': 'host-disturbed' } } } }),
      run('r3', { types: { video: { label: 'BBRv1', confidence: 0.9 } } }),
    ];
    const [o] = observe(x, three);
    expect(o).toMatchObject({ label: 'BBRv1', kind: 'cca', runsSeen: 3, votes: { BBRv1: 2, Unknown: 1 }, flows: 6 });
    expect(o.confidence).toBeCloseTo(0.85 * (0.5 + 0.5 * (2 / 3)), 3);
    expect(judge(x, 'sg', [o], three, false).verdict).toBe('pass');
    const tie = [run('r1', { types: { video: { label: 'BBRv1' } } }), run('r2', { types: { video: { label: 'CUBIC' } } })];
    const t = verdictOf(x, tie);
    expect(t.verdict).toBe('fail');
    expect(t.reason).toMatch(/tie: BBRv1 1 vs CUBIC 1/);
  });

  it('a host pattern judges every host it matches; the worst verdict stands, naming the host', () => {
    const x = expectation({ host: '*.cdn.example', cca: ['CUBIC'] });
    const runs = [run('r1', { hosts: { 'a.cdn.example': { label: 'CUBIC' }, 'b.cdn.example': { label: 'BBRv3' }, 'www.example': { label: 'BBRv1' } } })];
    const obs = observe(x, runs);
    expect(obs.map((o) => o.subject)).toEqual(['a.cdn.example', 'b.cdn.example']);
    expect(judge(x, 'sg', obs, runs, false)).toEqual({ verdict: 'fail', reason: 'b.cdn.example: expected CUBIC, observed BBRv3 (0.80)' });
  });

  it('asset type and host together read the host x type rows', () => {
    const x = expectation({ assetType: 'video', host: 'media.*', cca: ['BBRv1'] });
    const runs = [run('r1', { types: { video: { label: 'Unknown' } }, hostTypes: [['media.lab.ccb.test', 'video', { label: 'BBRv1' }], ['img.lab.ccb.test', 'video', { label: 'CUBIC' }]] })];
    expect(judge(x, 'sg', observe(x, runs), runs, false)).toEqual({ verdict: 'pass', reason: 'video from media.lab.ccb.test: BBRv1 (0.80) is BBRv1' });
  });

  it('WebRTC media is an answer an expectation may allow', () => {
    const x = expectation({ assetType: 'webrtc', cca: ['WebRTC media'] });
    expect(verdictOf(x, [run('r1', { types: { webrtc: { label: 'WebRTC media', confidence: 1 } } })]).verdict).toBe('pass');
  });
});

describe('the outcome', () => {
  it('exit 0 all pass (warnings pass), 1 any failure, 4 inconclusive only', () => {
    expect(overall(['pass', 'warn'])).toEqual({ outcome: 'pass', exitCode: 0 });
    expect(overall(['pass', 'inconclusive', 'fail'])).toEqual({ outcome: 'fail', exitCode: 1 });
    expect(overall(['pass', 'inconclusive', 'warn'])).toEqual({ outcome: 'inconclusive', exitCode: 4 });
  });

  it('a rule limited to some regions is judged only there; retry is pending only while runs may be added', () => {
    const s = plannedScenario([expectation(), expectation({ id: 'lab-vod sg only', name: 'sg only', regions: ['sg'], onNonAnswer: 'retry' })]);
    const eu = { scenario: s, region: 'eu', runs: [run('r1', { region: 'eu', types: { video: { label: 'BBRv1' } } })], seconds: 60 };
    expect(judgeMeasurement(eu, true).map((j) => j.x.name)).toEqual(['video is BBR']);
    const sg = { scenario: s, region: 'sg', runs: [run('r2', { types: { video: { label: 'Unknown' } } })], seconds: 60 };
    expect(judgeMeasurement(sg, true).map((j) => j.judgement.verdict)).toEqual(['fail', 'retry']);
    const report = buildCheckReport({ plan: { name: 'cdn', inputs: ['checks/cdn.ts'], scenarios: [s] }, mode: 'live', regions: ['eu', 'sg'], repeat: 1, measurements: [eu, sg], reportBase: 'https://qa.example/report' });
    expect(report.cases.map((c) => [c.region, c.name, c.verdict])).toEqual([['eu', 'video is BBR', 'pass'], ['sg', 'video is BBR', 'fail'], ['sg', 'sg only', 'inconclusive']]);
    expect(report).toMatchObject({ outcome: 'fail', exitCode: 1, counts: { pass: 1, warn: 0, fail: 1, inconclusive: 1 } });
    expect(report.cases[0].runs[0].reportUrl).toMatch(/^https:\/\/qa\.example\/report\/sites\/www\.lab\.ccb\.test-[0-9a-f]{8}\.html\?run=r1$/);
    expect(report.observations.map((o) => [o.region, o.assetType, o.label])).toEqual([['eu', 'video', 'BBRv1'], ['sg', 'video', 'Unknown']]);
  });
});

describe('Unknown answers from the classifier', () => {
  it("a 'low confidence' Unknown (the model's minAnswer) is the service's non-answer: never a pass, its reason kept", () => {
    const reason = 'low confidence: CUBIC would be right about 41 times in 100 under conditions like these (said CUBIC)';
    const runs = [run('r1', { types: { video: { label: 'Unknown', reason } } })];
    for (const [policy, verdict] of [['fail', 'fail'], ['warn', 'warn'], ['retry', 'inconclusive']] as const) {
      const j = verdictOf(expectation({ onNonAnswer: policy }), runs);
      expect(j.verdict, policy).toBe(verdict);
      expect(j.reason).toContain('low confidence: CUBIC would be right about 41 times in 100');
    }
  });

  it("a held-back label the rule does not allow, at the rule's own minimum confidence, fails naming expected and observed", () => {
    const reason = 'low confidence: CUBIC would be right about 79 times in 100 under conditions like these (said CUBIC)';
    const runs = [run('r1', { types: { video: { label: 'Unknown', reason, withheld: { label: 'CUBIC', confidence: 0.79 } } } })];
    const [o] = observe(expectation(), runs);
    expect(o).toMatchObject({ label: 'Unknown', kind: 'unknown', withheld: { label: 'CUBIC', confidence: 0.79, minAnswer: 0.8 } });
    // Under every policy: the evidence points elsewhere, this is not a missing answer.
    for (const onNonAnswer of ['fail', 'warn', 'retry'] as const) {
      expect(verdictOf(expectation({ cca: ['BBRv1'], onNonAnswer }), runs), onNonAnswer)
        .toEqual({ verdict: 'fail', reason: "expected BBRv1, observed CUBIC (0.79, below the classifier's 0.8 minimum answer)" });
    }
    // A retry rule measures again first, while it may.
    expect(verdictOf(expectation({ onNonAnswer: 'retry' }), runs, true)).toMatchObject({ verdict: 'retry', reason: expect.stringMatching(/pointing at CUBIC \(0\.79/) });
    // Below the rule's own minimum it is a non-answer, as the rule says, naming the label.
    const strict = verdictOf(expectation({ minConfidence: 0.9, onNonAnswer: 'warn' }), runs);
    expect(strict.verdict).toBe('warn');
    expect(strict.reason).toContain("the classifier's best, CUBIC at 0.79, is below its 0.8 minimum answer and the rule's 0.90");
  });

  it('a held-back label the rule allows is never a pass: the non-answer counts as the rule says', () => {
    const runs = [run('r1', { types: { video: { label: 'Unknown', withheld: { label: 'BBRv1', confidence: 0.79 } } } })];
    const j = verdictOf(expectation({ onNonAnswer: 'fail' }), runs);
    expect(j).toEqual({ verdict: 'fail', reason: "expected BBR, no answer (Unknown: the classifier's best, BBRv1 at 0.79, is below its 0.8 minimum answer)" });
    expect(verdictOf(expectation({ onNonAnswer: 'warn' }), runs).verdict).toBe('warn');
  });

  it('over repeats without an answer, the held-back labels vote as answers would', () => {
    const x = expectation({ cca: ['BBRv1'] });
    const two = [
      run('r1', { types: { video: { label: 'Unknown', withheld: { label: 'CUBIC', confidence: 0.78 } } } }),
      run('r2', { types: { video: { label: 'Unknown', withheld: { label: 'CUBIC', confidence: 0.76 } } } }),
    ];
    const [o] = observe(x, two);
    expect(o.withheld?.label).toBe('CUBIC');
    expect(o.withheld?.confidence).toBeCloseTo(0.77, 4);
    expect(judge(x, 'sg', [o], two, false).verdict).toBe('fail');
    // A run that answered keeps the vote an answer: held-back labels stay out of it.
    const answered = [run('r1', { types: { video: { label: 'BBRv1', confidence: 0.9 } } }), two[0]];
    expect(observe(x, answered)[0]).toMatchObject({ label: 'BBRv1', kind: 'cca' });
    expect(observe(x, answered)[0].withheld).toBeUndefined();
    // Held-back labels that split evenly point nowhere.
    const split = [two[0], run('r2', { types: { video: { label: 'Unknown', withheld: { label: 'BBRv1', confidence: 0.78 } } } })];
    expect(observe(x, split)[0].withheld).toBeUndefined();
  });

  it('a check whose profiles are all marked not for classification is refused before it measures', () => {
    const p = (name: string, forClassification: boolean) => ({ name, forClassification, classificationNote: forClassification ? undefined : 'never measured in the lab' });
    expect(() => requireClassifyingProfile('vod.ts', [p('geo-satellite', false)])).toThrow(/no profile of the check is for classification: geo-satellite \(never measured in the lab\)/);
    expect(() => requireClassifyingProfile('vod.ts', [p('geo-satellite', false), p('nebby-50', true)])).not.toThrow();
  });
});

describe('a held-back answer in messages', () => {
  it('never rounds up to the minimum it fell below: 0.7996 under 0.8 reads 0.79', () => {
    const o = { label: 'Unknown', kind: 'unknown' as const, confidence: 0, withheld: { label: 'CUBIC', confidence: 0.7996, minAnswer: 0.8 } };
    expect(labelWithConfidence(o)).toBe('CUBIC 0.79 (below the 0.8 minimum answer)');
    expect(heldBackConfidence(0.79)).toBe('0.79');
    expect(heldBackConfidence(0.5)).toBe('0.50');
  });
});
