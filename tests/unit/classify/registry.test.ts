import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { extractFlowFeatures } from '../../../src/classify/features.js';
import { defaultPipelineConfig } from '../../../src/classify/config.js';
import { classifierRegistry } from '../../../src/classify/registry.js';
import { defineClassifier, UNKNOWN } from '../../../src/classify/types.js';
import { APP_LIMITED, SHORT_FLOW } from '../../../src/classify/verdict.js';
import { renoSeries } from './synthetic.js';

describe('classifier registry', () => {
  it('has unique names and labels that never collide with the non-answers', () => {
    const names = classifierRegistry.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of classifierRegistry) {
      if (c.labels === 'learned') continue;
      for (const l of c.labels) expect([UNKNOWN, SHORT_FLOW, APP_LIMITED]).not.toContain(l);
    }
  });

  it('every classifier accepts its own defaults and rejects malformed params', () => {
    for (const c of classifierRegistry) {
      expect(() => c.parseParams(c.defaultParams())).not.toThrow();
      expect(() => c.parseParams({ bogus: 1 })).toThrow();
    }
  });

  it('rule-based classifiers stay silent on a loss-based sawtooth', () => {
    const f = extractFlowFeatures(renoSeries({ seed: 4001, durationS: 60 }), defaultPipelineConfig);
    for (const c of classifierRegistry.filter((x) => x.labels !== 'learned')) {
      expect(c.predict(f, c.defaultParams())).toEqual([]);
      expect(c.explain(f, c.defaultParams()).decision).toBeNull();
    }
  });

  it('defineClassifier validates params on every call (one file + one registry line adds a classifier)', () => {
    const alwaysX = defineClassifier({
      name: 'always-x',
      description: 'test',
      labels: ['X'],
      paramsSchema: z.object({ confidence: z.number().min(0).max(1) }),
      defaultParams: () => ({ confidence: 0.5 }),
      fit: (_e, p) => p,
      predict: (_f, p) => [{ classifier: 'always-x', label: 'X', scope: 'flow', confidence: p.confidence }],
      explain: () => ({}),
    });
    const f = extractFlowFeatures(renoSeries({ seed: 4002, durationS: 20 }), defaultPipelineConfig);
    expect(alwaysX.predict(f, { confidence: 0.7 })[0].confidence).toBe(0.7);
    expect(() => alwaysX.predict(f, { confidence: 3 })).toThrow();
  });
});
