/** A one-profile verdict for fusion tests: `label` at `confidence` (Unknown: 0), with what else the test needs. */
import type { Verdict } from '../../../src/classify/verdict.js';

export const testVerdict = (label: string, confidence: number, over: Partial<Verdict> = {}): Verdict => ({
  schemaVersion: 1,
  label,
  kind: label === 'Unknown' ? 'unknown' : 'cca',
  confidence: label === 'Unknown' ? 0 : confidence,
  reason: 'test',
  shapeCluster: null,
  evidence: null,
  ...over,
});
