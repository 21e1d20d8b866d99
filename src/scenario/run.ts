/**
 * Running a loaded scenario in a page the session prepared: open the start URL, accept
 * consent, run the steps (with a time limit), keep the activity going, and say plainly
 * how it went. A scenario that throws or a site that never answers is an OUTCOME, not an
 * exception: the session keeps its capture and records the status.
 */
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { ScenarioContext } from './define.js';
import { acceptConsent, installPageHooks, keepActivity, type ActivityStatus, type ConsentResult } from './helpers.js';
import { resolveLabUrl, type LabContext } from './lab.js';
import type { Scenario } from './schema.js';

export type OutcomeStatus =
  | 'ok'
  /** Ran, but the activity did not happen (media never played, call carried no bytes). */
  | 'no-activity'
  | 'navigation-failed'
  | 'steps-failed'
  | 'steps-timeout'
  | 'page-crashed'
  | 'aborted';

export interface ScenarioOutcome {
  status: OutcomeStatus;
  /** One line for people, e.g. "played 28.0 s, 1 stall". */
  detail: string;
  /** The URL actually opened. */
  startUrl: string;
  consent?: ConsentResult;
  stepsMs?: number;
  activity?: ActivityStatus;
  error?: string;
}

export interface RunScenarioOptions {
  lab?: LabContext;
  log?: (msg: string) => void;
  /** Abort (Ctrl-C): the run stops at the next check and reports 'aborted'. */
  signal?: AbortSignal;
  /** Called about once a second during the activity period (progress display). */
  onProgress?: (activity: ActivityStatus) => void;
  /** Override the scenario's activitySeconds (e.g. a quick smoke run). */
  activitySeconds?: number;
  /**
   * Asked once a second during the activity: true ends it early (`run --stop-when-stable`).
   * It ends only once the activity already counts as having happened (judgeActivity), so an
   * early end never turns a run into 'no-activity'.
   */
  endActivityEarly?: () => boolean;
}

/** Chromium flags the scenario asks for, to add to the session's own. */
export function scenarioLaunchArgs(scenario: Scenario): string[] {
  return [...scenario.browser.args];
}

/** Context options the scenario asks for (the session adds HAR recording, TLS, ...). */
export function scenarioContextOptions(scenario: Scenario): BrowserContextOptions {
  const b = scenario.browser;
  const opts: BrowserContextOptions = {};
  if (b.viewport !== undefined) opts.viewport = b.viewport;
  if (b.userAgent) opts.userAgent = b.userAgent;
  if (b.locale) opts.locale = b.locale;
  if (b.permissions.length) opts.permissions = [...b.permissions];
  return opts;
}

/**
 * The user agent to give a context when the scenario names none: the browser's own with
 * "HeadlessChrome" made "Chrome" (sites serve headless browsers differently, or not at all).
 */
export function defaultUserAgent(browserUserAgent: string): string {
  return browserUserAgent.replace(/HeadlessChrome\//g, 'Chrome/');
}

/** The URL the session opens: lab scenarios' start URLs are resolved through ctx.lab. */
export function scenarioStartUrl(scenario: Scenario, lab?: LabContext): string {
  return scenario.lab ? resolveLabUrl(scenario.startUrl, lab) : scenario.startUrl;
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message.split('\n').slice(0, 3).join(' ') : String(err);
}

/** Did the activity happen? Media kinds must play a little; calls must move bytes. */
export function judgeActivity(kind: Scenario['kind'], activitySeconds: number, a: ActivityStatus): { ok: boolean; detail: string } {
  const played = `played ${a.playedSeconds.toFixed(1)} s of ${a.seconds.toFixed(1)} s, ${a.stalls} stall${a.stalls === 1 ? '' : 's'}`;
  if (kind === 'static') return { ok: true, detail: `page kept open ${a.seconds.toFixed(1)} s` };
  if (kind === 'call') {
    const bytes = (a.webrtc?.bytesSent ?? 0) + (a.webrtc?.bytesReceived ?? 0);
    const detail = `${a.webrtc?.connections ?? 0} peer connection(s), ${bytes} WebRTC bytes, ${played}`;
    return { ok: activitySeconds === 0 || bytes > 0 || a.playedSeconds > 0, detail };
  }
  // A quarter of the period, at most 5 s: start-up and a stall or two are fine, nothing is not.
  const needed = Math.min(5, activitySeconds / 4);
  return { ok: a.playedSeconds >= needed, detail: a.maxElements === 0 ? `no media element found; ${played}` : played };
}

/**
 * Runs `scenario` in `page` (a fresh page of `context`, before any navigation). Never
 * throws for what the site or the scenario does; returns the outcome.
 */
export async function runScenario(
  scenario: Scenario,
  target: { page: Page; context: BrowserContext },
  opts: RunScenarioOptions = {},
): Promise<ScenarioOutcome> {
  const { page, context } = target;
  const log = opts.log ?? (() => undefined);
  const startUrl = scenarioStartUrl(scenario, opts.lab);
  const outcome = (status: OutcomeStatus, detail: string, extra: Partial<ScenarioOutcome> = {}): ScenarioOutcome =>
    ({ status, detail, startUrl, ...extra });
  let crashed = false;
  page.on('crash', () => {
    crashed = true;
  });

  await installPageHooks(context);
  log(`opening ${startUrl}`);
  try {
    await page.goto(startUrl, { waitUntil: 'domcontentloaded', timeout: scenario.timeouts.navigationMs });
  } catch (err) {
    if (opts.signal?.aborted) return outcome('aborted', `aborted while opening ${startUrl}`);
    return outcome(crashed ? 'page-crashed' : 'navigation-failed', `could not open ${startUrl}`, { error: errText(err) });
  }
  if (opts.signal?.aborted) return outcome('aborted', 'aborted after opening the start page');

  let consent: ConsentResult | undefined;
  if (scenario.consent.auto) {
    consent = await acceptConsent(page, { ...scenario.consent, log, signal: opts.signal });
  }

  // Steps, with a time limit: the abort signal tells helpers to stop waiting.
  const stepsAbort = new AbortController();
  const onOuterAbort = () => stepsAbort.abort();
  opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const ctx: ScenarioContext = { page, context, log, lab: opts.lab, startUrl, signal: stepsAbort.signal };
  const t0 = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), scenario.timeouts.stepsMs);
  });
  let stepsResult: 'done' | 'timeout';
  try {
    stepsResult = await Promise.race([Promise.resolve(scenario.steps(ctx)).then(() => 'done' as const), timedOut]);
  } catch (err) {
    return outcome(crashed ? 'page-crashed' : opts.signal?.aborted ? 'aborted' : 'steps-failed', 'the scenario steps threw',
      { error: errText(err), consent, stepsMs: Date.now() - t0 });
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onOuterAbort);
  }
  const stepsMs = Date.now() - t0;
  if (stepsResult === 'timeout') {
    stepsAbort.abort();
    return outcome('steps-timeout', `steps did not finish within ${scenario.timeouts.stepsMs} ms`, { consent, stepsMs });
  }
  if (crashed) return outcome('page-crashed', 'the page crashed during the steps', { consent, stepsMs });
  if (opts.signal?.aborted) return outcome('aborted', 'aborted during the steps', { consent, stepsMs });

  const seconds = opts.activitySeconds ?? scenario.activitySeconds;
  log(`keeping the ${scenario.kind} activity going for ${seconds} s`);
  const media = scenario.kind === 'vod' || scenario.kind === 'live' || scenario.kind === 'audio';
  const activity = await keepActivity(page, seconds, {
    resume: media,
    webrtc: scenario.kind === 'call',
    log,
    signal: opts.signal,
    endEarly: opts.endActivityEarly ? (a) => opts.endActivityEarly!() && judgeActivity(scenario.kind, seconds, a).ok : undefined,
    onTick: async (a) => {
      opts.onProgress?.(a);
      if (scenario.upkeep) await scenario.upkeep(ctx);
    },
  });
  if (opts.signal?.aborted) return outcome('aborted', 'aborted during the activity', { consent, stepsMs, activity });
  if (crashed) return outcome('page-crashed', 'the page crashed during the activity', { consent, stepsMs, activity });
  if (opts.signal?.aborted) return outcome('aborted', 'aborted during the activity', { consent, stepsMs, activity });
  const judged = judgeActivity(scenario.kind, seconds, activity);
  const detail = activity.pageClosed ? `${judged.detail} (the page closed early)`
    : activity.endedEarly ? `${judged.detail} (ended early of ${seconds} s: stop when stable)` : judged.detail;
  return outcome(judged.ok ? 'ok' : 'no-activity', detail, { consent, stepsMs, activity });
}
