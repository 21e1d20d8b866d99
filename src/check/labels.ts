/**
 * The labels an expectation may allow: the classifier's own (exact versions such as "BBRv3",
 * "CUBIC", the lab's loss-based controllers) and families of them. "BBR" is the family of
 * every BBR version ("BBRv1", "BBRv2", "BBRv3", "BBR (other version)"); the design families
 * of src/train/bench.ts ("AIMD", "max-probing", "multiplicative-increase", "delay-based",
 * "model-based") group controllers by how they grow and cut their window. An exact label
 * matches only itself. Names are case-insensitive in files and canonical in reports.
 */
import { TCP_CCAS } from '../lab/config.js';
import { KNOWN_LABELS } from '../results/schema.js';
import { designFamilyOf } from '../train/bench.js';
import { labelFor } from '../train/labels.js';

/** Non-answers: what onNonAnswer is about, never an allowed label. */
export const NON_ANSWER_LABELS = ['Unknown', 'Short flow', 'Application-limited'] as const;

const BBR_FAMILY = 'BBR';

/** Every exact label an expectation may name. */
export function knownLabels(): string[] {
  const lab = TCP_CCAS.map((c) => labelFor('tcp', c));
  const answers = KNOWN_LABELS.filter((l) => !(NON_ANSWER_LABELS as readonly string[]).includes(l));
  return [...new Set([...answers, ...lab])];
}

/** Every family an expectation may name. */
export function knownFamilies(): string[] {
  const design = knownLabels().map(designFamilyOf).filter((f): f is string => f !== null);
  return [BBR_FAMILY, ...new Set(design)];
}

export interface LabelSpec {
  /** Canonical spelling. */
  name: string;
  family: boolean;
}

/** Reads one allowed label; throws an Error saying what is allowed when the name is unknown. */
export function parseLabelSpec(raw: string): LabelSpec {
  const want = raw.trim().toLowerCase();
  const family = knownFamilies().find((f) => f.toLowerCase() === want);
  if (family) return { name: family, family: true };
  const label = knownLabels().find((l) => l.toLowerCase() === want);
  if (label) return { name: label, family: false };
  if ((NON_ANSWER_LABELS as readonly string[]).some((l) => l.toLowerCase() === want)) {
    throw new Error(`"${raw}" is a non-answer, not a controller: say what a non-answer counts as with onNonAnswer ('fail', 'warn' or 'retry')`);
  }
  throw new Error(`unknown label "${raw}": a family (${knownFamilies().join(', ')}) or a label (${knownLabels().join(', ')})`);
}

/** Whether an observed label is one of the allowed ones. */
export function labelAllowed(specs: readonly LabelSpec[], label: string): boolean {
  return specs.some((s) => {
    if (!s.family) return s.name === label;
    if (s.name === BBR_FAMILY) return label.startsWith('BBR');
    return designFamilyOf(label) === s.name;
  });
}

/** "BBR" / "BBRv3 or CUBIC", for names and messages. */
export function describeSpecs(specs: readonly LabelSpec[]): string {
  return specs.map((s) => s.name).join(' or ');
}
