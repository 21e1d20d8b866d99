/**
 * Expectations: what a QA team says a service should serve, checked by `ccbrowse check`.
 * Per asset type and/or server host pattern, per region, the congestion controllers allowed
 * (a family such as "BBR" or an exact version such as "BBRv3"), the minimum confidence, and
 * what a non-answer (Unknown, Short flow, Application-limited, too little confidence) counts
 * as: a failure, a warning, or a reason to measure again.
 *
 * Two places hold them, with the same shape: `expect` in a scenario (defineScenario), or a
 * file of their own that names the scenarios it is about:
 *
 *   import { defineExpectations } from 'ccbrowse';
 *   export default defineExpectations({
 *     scenarios: ['../scenarios/lab/vod.ts'],
 *     regions: ['eu', 'sg'],
 *     rules: [
 *       { assetType: 'video', cca: 'BBRv3' },
 *       { assetType: ['script', 'style'], cca: 'CUBIC', onNonAnswer: 'warn' },
 *     ],
 *   });
 *
 * Label names are checked when the file is loaded by the check (src/check/labels.ts knows the
 * classifier's labels and families); this schema checks the shape.
 */
import { z } from 'zod';
import { ASSET_TYPES } from '../correlate/asset-type.js';

/** What a non-answer counts as: a failure, a warning (passes), or: measure again, then inconclusive. */
export const NON_ANSWER_POLICIES = ['fail', 'warn', 'retry'] as const;
export type NonAnswerPolicy = (typeof NON_ANSWER_POLICIES)[number];

/** The asset types a run's rows have: the page's, and "webrtc" for a call's media. */
export const EXPECTATION_ASSET_TYPES = [...ASSET_TYPES, 'webrtc'] as const;
export type ExpectationAssetType = (typeof EXPECTATION_ASSET_TYPES)[number];

export const EXPECTATION_DEFAULTS = { minConfidence: 0.5, onNonAnswer: 'fail' as NonAnswerPolicy, retries: 2 };

const REGION = /^[a-z0-9][a-z0-9-]{0,15}$/;
/** A host name, or a pattern where `*` stands for any run of characters ("*.cdn.example.com"). */
const HOST_PATTERN = /^[a-z0-9*]([a-z0-9*.-]{0,252})$/i;

const oneOrMore = <T extends z.ZodType>(item: T, what: string) =>
  z.union([item, z.array(item).min(1, `give at least one ${what}`)], { error: `a ${what} or a list of them` });

const region = z.string().regex(REGION, 'a region name: 1-16 lower-case letters, digits or "-"');

const ruleShape = {
  /** The test case's name in reports (default: "video is BBRv3"). */
  name: z.string().min(1).max(200).optional(),
  /** Asset types the rule is about: each becomes its own test case. */
  assetType: oneOrMore(z.enum(EXPECTATION_ASSET_TYPES), 'asset type').optional(),
  /** Server hosts (exact, or with `*`) the rule is about; with assetType: that type from those hosts. */
  host: oneOrMore(z.string().regex(HOST_PATTERN, 'a host name, or a pattern with * such as "*.cdn.example.com"'), 'host').optional(),
  /** Only in these regions (default: every region checked). */
  regions: z.array(region).min(1).optional(),
  /** Allowed labels: families ("BBR", "AIMD") or exact labels ("BBRv3", "CUBIC"). */
  cca: oneOrMore(z.string().min(1), 'label'),
  /** Below this confidence an answer counts as a non-answer. */
  minConfidence: z.number().min(0).max(1).optional(),
  onNonAnswer: z.enum(NON_ANSWER_POLICIES).optional(),
};

const needsSubject = (r: { assetType?: unknown; host?: unknown }) => r.assetType !== undefined || r.host !== undefined;
const SUBJECT = { message: 'a rule needs `assetType`, `host`, or both', path: ['assetType'] };

export const expectationRuleSchema = z.object(ruleShape).strict().refine(needsSubject, SUBJECT);

/** A rule of an expectations file may name the scenario it is about (default: all of the file's). */
export const fileRuleSchema = z.object({ ...ruleShape, scenario: z.string().min(1).optional() }).strict().refine(needsSubject, SUBJECT);

const setShape = {
  /** Regions to check (default: --region, else "local"). */
  regions: z.array(region).min(1).optional(),
  /** Default for every rule (0.5). */
  minConfidence: z.number().min(0).max(1).optional(),
  /** Default for every rule ("fail"). */
  onNonAnswer: z.enum(NON_ANSWER_POLICIES).optional(),
  /** How many more measurements a "retry" rule may ask for per scenario and region (2). */
  retries: z.number().int().min(0).max(10).optional(),
};

/** `expect` in a scenario. */
export const expectationSetSchema = z.object({ ...setShape, rules: z.array(expectationRuleSchema).min(1, 'give at least one rule') }).strict();

/** An expectations file. */
export const expectationsSchema = z.object({
  /** Names the check in reports (default: the file's name). */
  name: z.string().min(1).max(100).optional(),
  description: z.string().optional(),
  /** Scenario files, relative to this file. */
  scenarios: z.array(z.string().min(1)).min(1, 'name at least one scenario file'),
  ...setShape,
  rules: z.array(fileRuleSchema).min(1, 'give at least one rule'),
}).strict();

export type ExpectationRuleInput = z.input<typeof fileRuleSchema>;
export type ExpectationRule = z.output<typeof fileRuleSchema>;
export type ExpectationSetInput = z.input<typeof expectationSetSchema>;
export type ExpectationSet = z.output<typeof expectationSetSchema>;
export type ExpectationsInput = z.input<typeof expectationsSchema>;
export type Expectations = z.output<typeof expectationsSchema>;

/** Gives an expectations file its types; validated when `ccbrowse check` loads it. */
export function defineExpectations(expectations: ExpectationsInput): ExpectationsInput {
  return expectations;
}

/**
 * Whether a host matches a rule's pattern (case-insensitive; `*` = any run of characters).
 * Hosts come from the measured site: matched by the greedy wildcard walk, never a RegExp.
 */
export function hostMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  const h = host.toLowerCase();
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (j < h.length) {
    if (i < p.length && p[i] === h[j]) { i++; j++; }
    else if (i < p.length && p[i] === '*') { star = i++; mark = j; }
    else if (star >= 0) { i = star + 1; j = ++mark; }
    else return false;
  }
  while (i < p.length && p[i] === '*') i++;
  return i === p.length;
}
