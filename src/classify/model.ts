/**
 * The model file: pipeline tunables + each classifier's parameters (the loss-based GNB's
 * per-class means/variances/thresholds, the rule-based classifiers' windows) + where the
 * training data came from. trainModel runs the same pipeline classification uses.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { BifSeries } from '../trace/types.js';
import { BadInputError } from '../util/errors.js';
import { defaultPipelineConfig, pipelineConfigSchema, type PipelineConfig } from './config.js';
import { extractFlowFeatures } from './features.js';
import { seenFromSender } from './classifyFlow.js';
import type { Json } from './json.js';
import { labelOf } from './classifiers/lossBased.js';
import { classifierRegistry } from './registry.js';
import type { LabelledFeatures } from './types.js';
import { seriesGate } from './validate.js';
import { envelopeSchema, fitEnvelope } from './envelope.js';
import { calibrationsSchema } from './calibration.js';

export const MODEL_SCHEMA_VERSION = 1;

export const modelSchema = z.object({
  schemaVersion: z.literal(MODEL_SCHEMA_VERSION),
  /** 'synthetic' (generated shapes), 'lab' (ground-truth servers), or another source tag. */
  provenance: z.string(),
  note: z.string(),
  /** Every CCA label this model can output. */
  classes: z.array(z.string()),
  pipeline: pipelineConfigSchema,
  /** Per classifier name, its parameters (validated by that classifier on load). */
  classifiers: z.record(z.string(), z.unknown()),
  /** The conditions the training flows were captured under (envelope.ts); absent in older models. */
  envelope: envelopeSchema.optional(),
  /** Maps a verdict's raw confidence to the probability it is right (calibration.ts): fused and single-profile; absent: identity. */
  calibration: calibrationsSchema.optional(),
  trainedOn: z.object({
    source: z.string(),
    examples: z.number().int().nonnegative(),
    examplesPerLabel: z.record(z.string(), z.number().int().nonnegative()),
    usableSegmentsPerLabel: z.record(z.string(), z.number().int().nonnegative()),
    /** Examples left out (invalid or too short), with the reason. */
    skipped: z.array(z.string()),
  }),
});
export type Model = z.infer<typeof modelSchema>;

export interface LabelledSeries {
  label: string;
  /** Training condition, e.g. the network profile (see LabelledFeatures.group). */
  group?: string;
  series: BifSeries;
}

export interface TrainOptions {
  pipeline?: PipelineConfig;
  /** Starting parameters per classifier name (defaults otherwise). */
  params?: Record<string, unknown>;
  provenance?: string;
  note?: string;
  source?: string;
}

function modelClasses(classifiers: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const c of classifierRegistry) {
    if (c.labels !== 'learned') out.push(...c.labels);
    else {
      const p = classifiers[c.name] as { gnb?: { classes?: Array<{ label: string }> } } | undefined;
      // Learned sub-classes are 'label@group': the model lists the labels.
      for (const k of p?.gnb?.classes ?? []) out.push(labelOf(k.label));
    }
  }
  return [...new Set(out)].sort();
}

/** An untrained model: defaults everywhere, the loss-based classifier knows no class yet. */
export function defaultModel(): Model {
  const classifiers: Record<string, Json> = {};
  for (const c of classifierRegistry) classifiers[c.name] = c.defaultParams();
  return {
    schemaVersion: MODEL_SCHEMA_VERSION,
    provenance: 'untrained',
    note: 'defaults only',
    classes: modelClasses(classifiers),
    pipeline: defaultPipelineConfig,
    classifiers,
    trainedOn: { source: 'none', examples: 0, examplesPerLabel: {}, usableSegmentsPerLabel: {}, skipped: [] },
  };
}

/**
 * Train every registered classifier. Learned classifiers see every labelled example (a BBR
 * trace teaches the loss-based model what BBR's bytes in flight look like, so it is not
 * mistaken for a loss-based shape); rule-based classifiers see only their own labels.
 */
export function trainModel(labelled: LabelledSeries[], opts: TrainOptions = {}): Model {
  const pipeline = opts.pipeline ?? defaultPipelineConfig;
  const examples: LabelledFeatures[] = [];
  const skipped: string[] = [];
  const conditions: Array<BifSeries['conditions']> = [];
  labelled.forEach((l, i) => {
    const gate = seriesGate(l.series, pipeline);
    if (gate) skipped.push(`#${i} (${l.label}): ${gate.reason}`);
    else {
      examples.push({ label: l.label, ...(l.group ? { group: l.group } : {}), features: extractFlowFeatures(seenFromSender(l.series, pipeline), pipeline) });
      conditions.push(l.series.conditions);
    }
  });
  const fixed = new Set<string>();
  for (const c of classifierRegistry) if (c.labels !== 'learned') for (const l of c.labels) fixed.add(l);
  const classifiers: Record<string, Json> = {};
  for (const c of classifierRegistry) {
    const start = c.parseParams(opts.params?.[c.name] ?? c.defaultParams());
    const mine = c.labels === 'learned' ? examples : examples.filter((e) => (c.labels as readonly string[]).includes(e.label));
    classifiers[c.name] = c.fit(mine, start);
  }
  const examplesPerLabel: Record<string, number> = {};
  const usableSegmentsPerLabel: Record<string, number> = {};
  for (const e of examples) {
    examplesPerLabel[e.label] = (examplesPerLabel[e.label] ?? 0) + 1;
    usableSegmentsPerLabel[e.label] = (usableSegmentsPerLabel[e.label] ?? 0) + e.features.segments.filter((s) => s.vector).length;
  }
  return {
    schemaVersion: MODEL_SCHEMA_VERSION,
    provenance: opts.provenance ?? 'lab',
    note: opts.note ?? '',
    classes: modelClasses(classifiers),
    pipeline,
    classifiers,
    // Only flows that carry their capture conditions bound the envelope; none at all: no envelope.
    ...(conditions.some(Boolean) ? { envelope: fitEnvelope(conditions) } : {}),
    trainedOn: { source: opts.source ?? 'unspecified', examples: examples.length, examplesPerLabel, usableSegmentsPerLabel, skipped },
  };
}

/** Validate a parsed model object (the file's JSON) against the schema and every classifier. */
export function parseModel(raw: unknown, where = 'model'): Model {
  const r = modelSchema.safeParse(raw);
  if (!r.success) {
    throw new BadInputError(`${where} is not a valid ccbrowse model: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, 'retrain it with trainModel, or use models/ccbrowse-model.json');
  }
  const model = r.data;
  for (const c of classifierRegistry) {
    // A classifier added after the model was trained runs with its defaults.
    if (!(c.name in model.classifiers)) {
      model.classifiers[c.name] = c.defaultParams();
      continue;
    }
    try {
      c.parseParams(model.classifiers[c.name]);
    } catch (e) {
      throw new BadInputError(`${where}: parameters of classifier '${c.name}' are invalid (${(e as Error).message})`, 'retrain the model with the current code');
    }
  }
  return model;
}

export function loadModel(path: string): Model {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new BadInputError(`cannot read model ${path}: ${(e as Error).message}`, 'check the path; the shipped model is models/ccbrowse-model.json');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new BadInputError(`model ${path} is not JSON: ${(e as Error).message}`, 'regenerate it with saveModel');
  }
  return parseModel(raw, path);
}

export function saveModel(model: Model, path: string): void {
  writeFileSync(path, `${JSON.stringify(model, null, 2)}\n`);
}
