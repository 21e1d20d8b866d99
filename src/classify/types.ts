/**
 * The classifier interface (scikit-learn style: fit / predict / explain over a
 * serialisable parameter object) and the claims classifiers make.
 */
import type { z } from 'zod';
import type { FlowFeatures } from './features.js';
import type { Json, JsonObject } from './json.js';

/** The label for 'judged, but matches nothing known'. */
export const UNKNOWN = 'Unknown';

/** One classifier's statement about a flow or one of its segments. */
export interface Claim {
  classifier: string;
  /** A CCA label, or UNKNOWN for a judged segment that matched nothing. */
  label: string;
  scope: 'flow' | 'segment';
  segmentIndex?: number;
  /** In [0, 1]. */
  confidence: number;
  /** Per-class posterior, for classifiers that have one. */
  posterior?: Record<string, number>;
  /** Classes whose training distribution this flow falls inside (learned classifiers). */
  inDistribution?: string[];
  /** How far inside the claimed class's training distribution (gnb.ts gateRatio: <= 1 inside, small = deep). */
  gateRatio?: number;
  /** A class whose training flows lie clearly nearer the flow than the likeliest class's (lossBased nearerClassFactor). */
  nearer?: string;
  /** Classes whose shapes held the flow but whose training flows never left the link that idle (lossBased linkIdle): a veto in the fusion too. */
  idleBeyond?: string[];
  /** When groups added beyond the trained conditions judged the flow (lossBased groupsNeedOutside): the labels holding it that the other groups alone would not have named (likeliest, in distribution, at 0.9 or more), every one of them outside those groups' conditions; the fusion needs two profiles to favour such an answer. */
  beyondTrained?: string[];
  note?: string;
}

export interface LabelledFeatures {
  label: string;
  /** Training condition (e.g. the network profile): learned classifiers model each apart. */
  group?: string;
  features: FlowFeatures;
}

export interface Classifier<P> {
  name: string;
  description: string;
  /** Labels it can emit; 'learned' = whatever labels it is trained on. */
  labels: readonly string[] | 'learned';
  /** Validates this classifier's section of the model file. */
  paramsSchema: z.ZodType<P>;
  defaultParams(): P;
  /** Returns new params (rule-based classifiers may return them unchanged). */
  fit(examples: LabelledFeatures[], params: P): P;
  predict(features: FlowFeatures, params: P): Claim[];
  /** JSON evidence for the report: periods, levels, posteriors... */
  explain(features: FlowFeatures, params: P): JsonObject;
}

/** A classifier with its parameter type erased, as the registry holds it. */
export interface RegisteredClassifier {
  name: string;
  description: string;
  labels: readonly string[] | 'learned';
  defaultParams(): Json;
  parseParams(raw: unknown): unknown;
  fit(examples: LabelledFeatures[], params: unknown): Json;
  predict(features: FlowFeatures, params: unknown): Claim[];
  explain(features: FlowFeatures, params: unknown): JsonObject;
}

/** Wrap a typed classifier for the registry; params are validated on every entry. */
export function defineClassifier<P extends Json>(c: Classifier<P>): RegisteredClassifier {
  const parse = (raw: unknown): P => c.paramsSchema.parse(raw);
  return {
    name: c.name,
    description: c.description,
    labels: c.labels,
    defaultParams: () => c.defaultParams(),
    parseParams: parse,
    fit: (ex, p) => c.fit(ex, parse(p)),
    predict: (f, p) => c.predict(f, parse(p)),
    explain: (f, p) => c.explain(f, parse(p)),
  };
}
