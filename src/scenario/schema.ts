/**
 * The scenario schema: what a scenario file may say, with defaults, validated on load so a
 * typo is a clear error naming the field, not a silently different measurement.
 */
import { z } from 'zod';
import { ASSET_TYPES } from '../correlate/asset-type.js';
import type { ScenarioSteps } from './define.js';
import { expectationSetSchema } from './expectations.js';

export const SCENARIO_KINDS = ['vod', 'live', 'audio', 'call', 'static'] as const;
export type ScenarioKind = (typeof SCENARIO_KINDS)[number];

export const DEFAULT_PROFILES = ['nebby-50', 'nebby-100'];

/** Flags the session owns: a scenario setting them would break capture or correlation. */
const SESSION_FLAGS = [
  '--host-resolver-rules', '--log-net-log', '--net-log-capture-mode', '--ssl-key-log-file', '--user-data-dir',
  '--remote-debugging-port', '--remote-debugging-pipe', '--ignore-certificate-errors-spki-list', '--proxy-server',
];

const pattern = z.union([z.string().min(1, 'must not be empty'), z.instanceof(RegExp)]);

const assetRuleSchema = z
  .object({
    /** On the URL: a string is a case-insensitive substring (never a regex); or a RegExp. */
    match: pattern.optional(),
    /** On the response MIME type, same matching. */
    mime: pattern.optional(),
    type: z.enum(ASSET_TYPES),
  })
  .strict()
  .refine((r) => r.match !== undefined || r.mime !== undefined, 'a rule needs `match` (URL) or `mime`, or both');

const browserSchema = z
  .object({
    /**
     * Extra Chromium flags, added to the session's. E.g. fake camera/microphone for calls:
     * --use-fake-device-for-media-stream --use-fake-ui-for-media-stream.
     */
    args: z
      .array(
        z.string().regex(/^--[a-zA-Z0-9]/, 'a Chromium flag starts with "--"').refine(
          (a) => !SESSION_FLAGS.some((f) => a === f || a.startsWith(`${f}=`)),
          'the session sets this flag itself (capture, correlation or lab mode depend on it)',
        ),
      )
      .default([]),
    /** Page viewport; null = the window size. Default 1280x720 (the session's). */
    viewport: z.object({ width: z.number().int().min(200).max(7680), height: z.number().int().min(200).max(4320) }).strict().nullable().optional(),
    /** Replaces the browser's user agent (default: the session's, "HeadlessChrome" hidden). */
    userAgent: z.string().min(1).optional(),
    /** Locale (Accept-Language, navigator.language), e.g. "en-US": decides consent dialog language. */
    locale: z.string().regex(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/, 'a BCP 47 tag such as en-US').optional(),
    /** Permissions granted to the start URL's origin, e.g. ["camera", "microphone"] for calls. */
    permissions: z.array(z.string().min(1)).default([]),
  })
  .strict();

const consentSchema = z
  .object({
    /** Click through consent dialogs right after the start page loads (runScenario). */
    auto: z.boolean().default(true),
    /** Extra accessible names of the site's "accept" button, tried before the built-in ones. */
    buttons: z.array(pattern).default([]),
    /** Extra CSS selectors of the site's "accept" button. */
    selectors: z.array(z.string().min(1)).default([]),
    /** How long to wait for a dialog to appear before deciding there is none. */
    timeoutMs: z.number().int().min(0).max(60_000).default(6_000),
  })
  .strict();

const timeoutsSchema = z
  .object({
    /** Loading the start URL (until "domcontentloaded"). */
    navigationMs: z.number().int().min(1_000).max(600_000).default(45_000),
    /** The whole of `steps` (the activity period is separate). */
    stepsMs: z.number().int().min(1_000).max(1_800_000).default(120_000),
  })
  .strict();

export const scenarioSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lower-case letters, digits, ".", "_" and "-" only'),
    description: z.string().optional(),
    /** What the activity is: decides how progress is judged (media playing, call bytes, page loaded). */
    kind: z.enum(SCENARIO_KINDS),
    /** Opened by the session before `steps` runs (lab scenarios: resolved through ctx.lab.hosts). */
    startUrl: z.string().url('must be an absolute URL').refine((u) => /^https?:\/\//i.test(u), 'must be an http:// or https:// URL'),
    /** What a user does once the page is open: consent, play, join. Async, gets the ScenarioContext. */
    steps: z.custom<ScenarioSteps>((v) => typeof v === 'function', 'must be an async function: async ({ page }) => { ... }'),
    /**
     * Site upkeep during the activity period, called about once a second (skip an ad, answer
     * "still watching?"). Errors are logged, never fatal. Keep it quick: it delays sampling.
     */
    upkeep: z.custom<ScenarioSteps>((v) => typeof v === 'function', 'must be an async function: async ({ page }) => { ... }').optional(),
    /** How long to keep the activity going after `steps` (Nebby: >= 16-18 s of trace per profile). */
    activitySeconds: z.number().min(0).max(3_600).default(30),
    /** Site-specific asset types, tried first, first match wins (e.g. googlevideo videoplayback -> video). */
    assetRules: z.array(assetRuleSchema).default([]),
    /** Network profiles to run under: shipped names (shapers/*.ts) or paths. */
    profiles: z.array(z.string().min(1)).min(1, 'give at least one profile').default(DEFAULT_PROFILES),
    /** Where the site is best measured from (a hint: runs are tagged with --region). */
    region: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'a short lower-case tag such as "eu" or "sg"').optional(),
    /** A lab scenario: runs against the local lab (host-resolver rules), never the internet. */
    lab: z.boolean().default(false),
    browser: browserSchema.prefault({}),
    consent: consentSchema.prefault({}),
    timeouts: timeoutsSchema.prefault({}),
    /** What `ccbrowse check` expects of this site (src/scenario/expectations.ts); `run` ignores it. */
    expect: expectationSetSchema.optional(),
  })
  .strict();

export type ScenarioInput = z.input<typeof scenarioSchema>;
export type Scenario = z.output<typeof scenarioSchema>;
export type AssetRuleInput = z.input<typeof assetRuleSchema>;
export type BrowserOptions = Scenario['browser'];
export type ConsentOptions = Scenario['consent'];
