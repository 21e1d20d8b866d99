/**
 * An answer that rests on the groups added beyond the trained conditions (lossBased.ts
 * groupsNeedOutside; the shipped model's `.beyond` groups, trained on held-out rounds at other
 * bottleneck rates) needs two profiles whose shapes favour it (fusion.ts beyondTrainedDoubt),
 * unless one profile shows the named controller's own signature (oneProfileSignatures.ts: CUBIC,
 * NewReno over QUIC halving its window, HSTCP, Vegas keeping its few packets queued, H-TCP rising
 * convex after its cuts, Scalable backing off shallower than halving, BIC keeping about 0.8 from a
 * filled buffer).
 * Fixture: held-out round W of session 55, 480 kbit/s behind both Nebby profiles 140 ms away, which
 * the groups never saw: kernel CUBIC, named by them from both profiles, and kernel NewReno, whose
 * nebby-50 flow they alone named Westwood at 0.98; and from round X, kernel CUBIC through `video` at
 * 2.5 Mbit/s, which the other groups alone named. Second fixture (session 59): rounds AE of session
 * 58 (`video` at 2.4 Mbit/s 55 ms away; 550 kbit/s 130 ms away), AC of session 57 (650 kbit/s
 * 90 ms away, 0.3% server-side loss), W of session 55 and session 54's h-bn-700k-60 and hd-bn-1m-90j1.
 */
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { beyondTrainedDoubt } from '../../../src/classify/fusion.js';
import { checkEnvelope } from '../../../src/classify/envelope.js';
import type { LossBasedParams } from '../../../src/classify/classifiers/lossBased.js';
import type { Verdict } from '../../../src/classify/verdict.js';
import { toSeries } from '../../../src/train/dataset.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel, withoutGate } from './shippedModel.js';

// The model these answers were read on: session 60's `.beyond2` groups (every held-out round read
// since) hold several of these flows themselves, so the rule is judged on the model before them
// (withoutGate). The shipped model's own reading of the same flows is checked at the end.
const model = withoutGate(shippedModel(), '.beyond2');
const calibration = model.calibration!;
const flows = labSeriesFlows('beyond-trained.json.gz');
const judged = (origin: string, profile: string): Verdict => {
  const f = flows.find((x) => x.origin === origin && x.profile === profile);
  if (!f) throw new Error(`beyond-trained.json.gz holds no ${origin} flow through ${profile}`);
  return classifyFlow(toSeries(f), model);
};
const lossClaim = (v: Verdict) => v.evidence!.claims.find((c) => c.classifier === 'loss-based')!;

describe('answers resting on the groups added beyond the trained conditions', () => {
  it('the shipped model carries such groups, gated on the conditions it was first trained under', () => {
    const gates = (model.classifiers['loss-based'] as LossBasedParams).groupsNeedOutside ?? {};
    expect(Object.keys(gates)).toContain('.beyond');
    expect(gates['.beyond'].beyond).toBe(0.5);
    // ... and open to a flow no other group's shapes hold (session 56).
    expect(gates['.beyond'].unheld).toBe(true);
  });

  it('are given when two profiles favour them', () => {
    const both = [judged('tcp-cubic', 'nebby-50'), judged('tcp-cubic', 'nebby-100')];
    const gate = (model.classifiers['loss-based'] as LossBasedParams).groupsNeedOutside!['.beyond'];
    for (const v of both) {
      // Beyond the gate: the flow lies more than 0.5 from the envelope the model had before the groups.
      expect(checkEnvelope(gate.envelope, v.conditions!.measured!).distance).toBeGreaterThan(0.5);
      expect(lossClaim(v).beyondTrained).toContain('CUBIC');
    }
    const fused = fuseProfiles(both, { calibration });
    expect(fused.label).toBe('CUBIC');
    expect(fused.confidence).toBeGreaterThanOrEqual(0.9);
  });

  it('are withheld from one profile alone, with the reason', () => {
    const v = judged('tcp-reno', 'nebby-50');
    expect(v.label).toBe('Westwood');
    const single = fuseProfiles([v], { calibration });
    expect(single.label).toBe('Unknown');
    expect(single.reason).toMatch(/^Westwood named by groups trained beyond/);
  });

  it('but CUBIC, whose growth is a curve in time since its last cut, is named from one profile (session 58)', () => {
    for (const profile of ['nebby-50', 'nebby-100']) {
      const v = judged('tcp-cubic', profile);
      expect(v.label, profile).toBe('CUBIC');
      expect(lossClaim(v).beyondTrained, profile).toContain('CUBIC');
      expect(beyondTrainedDoubt('CUBIC', [v], true)).toBeNull();
      const single = fuseProfiles([v], { calibration });
      expect(single.label, profile).toBe('CUBIC');
      expect(single.confidence, profile).toBeGreaterThanOrEqual(0.8);
    }
  });

  it('a profile whose answer the other groups alone gave at 0.9 or more needs no second one', () => {
    // Kernel CUBIC through `video` at 2.5 Mbit/s (round X), beyond the gate: the added groups judged
    // it (other labels rest on them), but CUBIC, which the other groups alone named, does not.
    const v = judged('tcp-cubic', 'video');
    const gate = (model.classifiers['loss-based'] as LossBasedParams).groupsNeedOutside!['.beyond'];
    expect(checkEnvelope(gate.envelope, v.conditions!.measured!).distance).toBeGreaterThan(0.5);
    expect(v.label).toBe('CUBIC');
    expect(lossClaim(v).beyondTrained?.length).toBeGreaterThan(0);
    expect(lossClaim(v).beyondTrained).not.toContain('CUBIC');
    const single = fuseProfiles([v], { calibration });
    expect(single.label).toBe('CUBIC');
    expect(beyondTrainedDoubt('CUBIC', [v], true)).toBeNull();
    // Where the answer rests on the added groups, a rule-based claim backing it (lossOnly false) is evidence of its own.
    expect(beyondTrainedDoubt('Westwood', [judged('tcp-reno', 'nebby-50')], true)).toMatch(/needs two profiles/);
    expect(beyondTrainedDoubt('Westwood', [judged('tcp-reno', 'nebby-50')], false)).toBeNull();
  });
});

describe('one-profile answers from the groups trained beyond, by signature (session 59)', () => {
  const signed = labSeriesFlows('beyond-one-profile.json.gz');
  const read = (origin: string, region?: string): Verdict => {
    const f = signed.find((x) => x.origin === origin && (region === undefined || x.region === region));
    if (!f) throw new Error(`beyond-one-profile.json.gz holds no ${origin} flow${region ? ` in ${region}` : ''}`);
    return classifyFlow(toSeries(f), model);
  };
  const whole = (v: Verdict) => v.evidence!.classifiers['loss-based'].senderWindow as { transport: string; beta: number; backoffs: number };

  it('NewReno over QUIC, whose back-offs halve the window, is named from one profile', () => {
    for (const origin of ['aioquic-reno', 'quinn-newreno']) {
      const v = read(origin);
      expect(v.label, origin).toBe('NewReno');
      expect(lossClaim(v).beyondTrained, origin).toContain('NewReno');
      expect(whole(v).transport, origin).toBe('quic');
      expect(whole(v).beta, origin).toBeLessThanOrEqual(0.53);
      const single = fuseProfiles([v], { calibration });
      expect(single.label, origin).toBe('NewReno');
      expect(single.confidence, origin).toBeGreaterThanOrEqual(0.8);
    }
  });

  it('a QUIC flow the groups call NewReno but which kept 0.7 of its window (aioquic CUBIC) is not', () => {
    const v = read('aioquic-cubic');
    expect(v.label).toBe('NewReno');
    expect(whole(v).beta).toBeGreaterThan(0.53);
    const single = fuseProfiles([v], { calibration });
    expect(single.label).toBe('Unknown');
    expect(single.reason).toMatch(/or one showing a QUIC flow whose back-offs halve its window$/);
  });

  it('a TCP flow halving its window is not NewReno from one profile: YeAH in its Reno mode halves too', () => {
    const v = read('tcp-yeah');
    expect(v.label).toBe('NewReno');
    expect(whole(v).transport).toBe('tcp');
    expect(whole(v).beta).toBeLessThanOrEqual(0.53);
    expect(fuseProfiles([v], { calibration }).label).toBe('Unknown');
  });

  it('HSTCP is named from one profile whose own back-offs kept more than halving, not from one that never cut', () => {
    const v = read('tcp-highspeed', 'h-af-r700-35j1');
    expect(lossClaim(v).beyondTrained).toContain('HSTCP');
    expect(whole(v).beta).toBeGreaterThan(0.53);
    expect(beyondTrainedDoubt('HSTCP', [v], true)).toBeNull();
    expect(fuseProfiles([v], { calibration }).label).toBe('HSTCP');
    // Behind nebby-100 (550 kbit/s 130 ms away) the same server never cut after start-up: no HSTCP cut to read.
    const uncut = read('tcp-highspeed', 'h-ae-r550-130j2');
    expect(uncut.label).toBe('HSTCP');
    expect(uncut.evidence!.classifiers['loss-based'].senderWindow).toBeFalsy();
    expect(fuseProfiles([uncut], { calibration }).reason).toMatch(/or one showing a back-off shallower than halving$/);
  });

  it('Vegas keeping its few packets queued is named from one profile; Veno filling the buffer is not', () => {
    const vegas = read('tcp-vegas', 'h-ae-r550-130j2');
    expect(vegas.evidence!.classifiers.akamai.queuedPackets).toBeGreaterThanOrEqual(1.5);
    expect(vegas.evidence!.classifiers.akamai.queuedPackets).toBeLessThan(8);
    expect(fuseProfiles([vegas], { calibration }).label).toBe('Vegas');
    // Kernel Veno 140 ms away, whose shape the groups alone named Vegas at 0.94, kept 28 queued.
    // Since session 60 a Vegas answer from a profile keeping twice Vegas's beta or more is withheld
    // in the flow's own verdict too (vegasQueue.ts vegasQueueWithheld).
    const veno = read('tcp-veno');
    expect(veno.label).toBe('Unknown');
    expect(veno.reason).toMatch(/Vegas keeps 2-4 packets queued .*a loss-based sender filling the buffer/);
    expect(veno.evidence!.classifiers.akamai.queuedPackets).toBeGreaterThan(8);
    expect(fuseProfiles([veno], { calibration }).label).toBe('Unknown');
  });

  it('H-TCP rising convex after its cuts is named from one profile; kernel BBR whose level fell is not', () => {
    expect(fuseProfiles([read('tcp-htcp')], { calibration }).label).toBe('HTCP');
    // Kernel BBR 60 ms away (h-bn-700k-60), named H-TCP by the groups alone: its growth per RTT is negative.
    const bbr = read('tcp-bbr');
    expect(bbr.label).toBe('HTCP');
    expect((bbr.evidence!.classifiers['loss-based'].descriptor as { growthPerRtt: number }).growthPerRtt).toBeLessThan(0);
    expect(fuseProfiles([bbr], { calibration }).label).toBe('Unknown');
  });

  it('Scalable is named from one profile only from a flow that cut after start-up', () => {
    const scalable = read('tcp-scalable');
    expect(whole(scalable).beta).toBeGreaterThan(0.53);
    expect(fuseProfiles([scalable], { calibration }).label).toBe('Scalable');
    // Kernel Illinois 60 ms away behind nebby-100, which never cut after start-up: the groups alone said Scalable at 0.99.
    const illinois = read('tcp-illinois');
    expect(illinois.label).toBe('Scalable');
    expect(illinois.evidence!.classifiers['loss-based'].senderWindow).toBeFalsy();
    expect(fuseProfiles([illinois], { calibration }).label).toBe('Unknown');
  });

  it("BIC is named from one profile when its cuts keep about 0.8 from a filled buffer; Vegas's few packets queued are not that", () => {
    const bic = read('tcp-bic');
    expect(fuseProfiles([bic], { calibration }).label).toBe('BIC');
    // Kernel Vegas 90 ms away (hd-bn-1m-90j1), named BIC by the groups alone: its cuts kept 0.76, from 4.7 packets queued.
    const vegas = read('tcp-vegas', 'hd-bn-1m-90j1');
    expect(vegas.label).toBe('BIC');
    expect(whole(vegas).beta).toBeGreaterThanOrEqual(0.75);
    expect(vegas.evidence!.classifiers.akamai.queuedPackets).toBeLessThan(8);
    expect(fuseProfiles([vegas], { calibration }).label).toBe('Unknown');
  });

  describe('each signature reads the profile it names (evidence edited: pure logic)', () => {
    type Edit = (loss: Record<string, any>, classifiers: Record<string, any>) => void;
    const edited = (v: Verdict, edit: Edit): Verdict => {
      const c = structuredClone(v);
      edit(c.evidence!.classifiers['loss-based'] as Record<string, any>, c.evidence!.classifiers as Record<string, any>);
      return c;
    };
    const doubt = (label: string, v: Verdict) => beyondTrainedDoubt(label, [v], true);

    it('NewReno over QUIC: two back-offs or more, halving, not a drain', () => {
      const v = read('aioquic-reno');
      expect(doubt('NewReno', v)).toBeNull();
      expect(doubt('NewReno', edited(v, (l) => { l.senderWindow.backoffs = 1; }))).not.toBeNull();
      expect(doubt('NewReno', edited(v, (l) => { l.senderWindow.beta = 0.6; }))).not.toBeNull();
      expect(doubt('NewReno', edited(v, (l) => { l.senderWindow.beta = 0.05; }))).not.toBeNull();
    });

    it('Scalable: a cut keeping more than half; BIC: 0.75-0.85 from a filled buffer', () => {
      const scalable = read('tcp-scalable');
      expect(doubt('Scalable', edited(scalable, (l) => { l.senderWindow.beta = 0.5; }))).not.toBeNull();
      const bic = read('tcp-bic');
      expect(doubt('BIC', bic)).toBeNull();
      expect(doubt('BIC', edited(bic, (l) => { l.senderWindow.beta = 0.7; }))).not.toBeNull();
      expect(doubt('BIC', edited(bic, (l) => { l.senderWindow.beta = 0.87; }))).not.toBeNull();
    });

    it("Vegas: at least its alpha queued; H-TCP: a cut after start-up and a convex rise", () => {
      const vegas = read('tcp-vegas', 'h-ae-r550-130j2');
      expect(doubt('Vegas', vegas)).toBeNull();
      expect(doubt('Vegas', edited(vegas, (_, c) => { c.akamai.queuedPackets = 1; }))).not.toBeNull();
      const htcp = read('tcp-htcp');
      expect(doubt('HTCP', htcp)).toBeNull();
      expect(doubt('HTCP', edited(htcp, (l) => { l.descriptor.curvature = -0.2; }))).not.toBeNull();
      expect(doubt('HTCP', edited(htcp, (l) => { l.descriptor.backoffsPer100Rtt = 0; }))).not.toBeNull();
    });
  });
});

describe('the shipped model, with session 60\'s `.beyond2` groups, on the same flows', () => {
  const shipped = shippedModel();
  const all = [...labSeriesFlows('beyond-trained.json.gz'), ...labSeriesFlows('beyond-one-profile.json.gz')];

  it('carries them behind the same kind of gate as `.beyond`', () => {
    const gate = (shipped.classifiers['loss-based'] as LossBasedParams).groupsNeedOutside!['.beyond2'];
    expect(gate.beyond).toBe(0.5);
    expect(gate.unheld).toBe(true);
  });

  it('names no flow a wrong CCA, one profile at a time or fused per measurement, and names some', () => {
    const verdicts = all.map((f) => ({ f, v: classifyFlow(toSeries(f), shipped) }));
    let named = 0;
    for (const { f, v } of verdicts) {
      const single = fuseProfiles([v], { calibration: shipped.calibration! });
      if (single.kind === 'cca') expect(single.label, `${f.origin} ${f.profile}`).toBe(f.label);
      if (single.kind === 'cca') named++;
    }
    expect(named).toBeGreaterThan(verdicts.length / 2);
    const byMeasurement = new Map<string, typeof verdicts>();
    for (const x of verdicts) byMeasurement.set(`${x.f.origin} ${x.f.region} ${x.f.rep}`, [...(byMeasurement.get(`${x.f.origin} ${x.f.region} ${x.f.rep}`) ?? []), x]);
    for (const [k, g] of byMeasurement) {
      const fused = fuseProfiles(g.map((x) => x.v), { calibration: shipped.calibration! });
      if (fused.kind === 'cca') expect(fused.label, k).toBe(g[0].f.label);
    }
  });
});
