import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultModel, loadModel, parseModel, saveModel, trainModel } from '../../../src/classify/model.js';
import { buildProvisionalModel } from '../../../src/classify/provisional.js';
import { BadInputError } from '../../../src/util/errors.js';
import { FLOW_SHAPE_NAMES } from '../../../src/classify/flowShape.js';
import { shippedModel } from './shippedModel.js';
import { bbrV1Series, cubicSeries, renoSeries, shortFlowSeries } from './synthetic.js';

const dir = mkdtempSync(join(tmpdir(), 'ccbrowse-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the shipped model', () => {
  it('is lab-trained and knows every lab TCP controller and the rule-based classes', () => {
    const m = shippedModel();
    expect(m.schemaVersion).toBe(1);
    expect(m.provenance).toBe('lab');
    const tcp = ['BBRv1', 'BIC', 'CUBIC', 'HSTCP', 'HTCP', 'Illinois', 'NewReno', 'Scalable', 'Vegas', 'Veno', 'Westwood', 'YeAH'];
    expect(m.classes).toEqual(expect.arrayContaining([...tcp, 'BBRv2', 'BBR (other version)', 'AkamaiCC-like', 'Copa']));
    for (const l of tcp) expect(m.trainedOn.examplesPerLabel[l]).toBeGreaterThanOrEqual(6);
  });
});

describe('the provisional (synthetic) model', () => {
  it('is marked synthetic and provisional', () => {
    const m = buildProvisionalModel();
    expect(m.provenance).toBe('synthetic');
    expect(m.note).toMatch(/PROVISIONAL/);
    expect(m.classes).toEqual(expect.arrayContaining(['NewReno', 'CUBIC', 'BBRv1']));
  });
});

describe('trainModel / saveModel / loadModel', () => {
  const labelled = [
    { label: 'NewReno', series: renoSeries({ seed: 3001, durationS: 60 }) },
    { label: 'NewReno', series: renoSeries({ seed: 3002, durationS: 60 }) },
    { label: 'CUBIC', series: cubicSeries({ seed: 3003, durationS: 60 }) },
    { label: 'CUBIC', series: cubicSeries({ seed: 3004, durationS: 60 }) },
    { label: 'BBRv1', series: bbrV1Series({ seed: 3005 }) },
    { label: 'CUBIC', series: shortFlowSeries({ seed: 3006 }) },
  ];
  const model = trainModel(labelled, { provenance: 'test', source: 'unit test' });

  it('trains the learned model on every label (BBR too), one descriptor per flow', () => {
    const gnb = (model.classifiers['loss-based'] as { gnb: { classes: Array<{ label: string; mean: number[]; variance: number[] }> } }).gnb;
    expect(gnb.classes.map((c) => c.label)).toEqual(['BBRv1', 'CUBIC', 'NewReno']);
    for (const c of gnb.classes) {
      expect(c.mean).toHaveLength(FLOW_SHAPE_NAMES.length);
      for (const v of c.variance) expect(v).toBeGreaterThan(0);
    }
    expect(model.trainedOn.examplesPerLabel).toEqual({ NewReno: 2, CUBIC: 2, BBRv1: 1 });
  });

  it('skips series too short to train on, recording why', () => {
    expect(model.trainedOn.skipped).toHaveLength(1);
    expect(model.trainedOn.skipped[0]).toMatch(/#5 \(CUBIC\): too short/);
  });

  it('round-trips through a file', () => {
    const p = join(dir, 'm.json');
    saveModel(model, p);
    expect(loadModel(p)).toEqual(JSON.parse(JSON.stringify(model)));
  });

  it('rejects unreadable, non-JSON and invalid model files with an actionable error', () => {
    expect(() => loadModel(join(dir, 'missing.json'))).toThrow(BadInputError);
    const notJson = join(dir, 'bad.json');
    writeFileSync(notJson, '{nope');
    expect(() => loadModel(notJson)).toThrow(/not JSON/);
    const wrong = join(dir, 'wrong.json');
    writeFileSync(wrong, JSON.stringify({ ...model, schemaVersion: 99 }));
    expect(() => loadModel(wrong)).toThrow(/schemaVersion/);
    const badParams = { ...model, classifiers: { ...model.classifiers, bbr: { nonsense: true } } };
    expect(() => parseModel(badParams)).toThrow(/classifier 'bbr'/);
  });

  it('fills in defaults for a classifier added after the model was trained', () => {
    const { copa: _dropped, ...rest } = model.classifiers;
    const m = parseModel({ ...model, classifiers: rest });
    expect(m.classifiers.copa).toEqual(defaultModel().classifiers.copa);
  });
});
