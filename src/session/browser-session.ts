/**
 * One profile's browser session: Chromium in the client namespace with NetLog, TLS key log,
 * HAR recording and a CDP recorder, running the scenario. Whatever happens in the page, the
 * artefacts gathered so far are kept and the outcome says what happened.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import type { CleanupStack } from '../net/cleanup.js';
import { sleep } from '../util/exec.js';
import { isInterruption, unlessInterrupted } from '../util/interrupt.js';
import { browserUser, giveToBrowserUser, launchInNamespace } from '../browser/launch.js';
import { CdpRecorder, type CdpRequest } from '../correlate/cdp-recorder.js';
import { runScenario, scenarioContextOptions, scenarioLaunchArgs, type ScenarioOutcome } from '../scenario/run.js';
import type { LabContext } from '../scenario/lab.js';
import type { Scenario } from '../scenario/schema.js';
import { ARTIFACTS } from './artifacts.js';

export { ARTIFACTS };

export interface BrowserSessionResult {
  outcome: ScenarioOutcome;
  requests: CdpRequest[];
  browserVersion: string;
}

export async function runBrowserSession(stack: CleanupStack, opts: {
  netns: string; dir: string; scenario: Scenario; baseArgs: string[]; lab?: LabContext;
  log: (m: string) => void; signal?: AbortSignal; onTick?: () => void;
  /** Ends the scenario's activity early when true (`run --stop-when-stable`), through its normal end. */
  endActivityEarly?: () => boolean;
}): Promise<BrowserSessionResult> {
  // Chromium writes the NetLog and key log itself, as its unprivileged user: into a scratch
  // directory it owns (the run directory may sit where that user cannot go), moved in after.
  const scratch = mkdtempSync(join(tmpdir(), 'ccb-netlog-'));
  stack.push({ kind: 'file', path: scratch });
  giveToBrowserUser(scratch, browserUser());
  const args = [
    ...opts.baseArgs,
    ...scenarioLaunchArgs(opts.scenario),
    `--log-net-log=${join(scratch, ARTIFACTS.netlog)}`,
    '--net-log-capture-mode=Default',
    `--ssl-key-log-file=${join(scratch, ARTIFACTS.keylog)}`,
  ];
  const b = await launchInNamespace(stack, { netns: opts.netns, args, env: { SSLKEYLOGFILE: join(scratch, ARTIFACTS.keylog) } });
  const browserVersion = b.browser.version();
  const recorder = new CdpRecorder();
  const signal = opts.signal;
  const aborted = (): ScenarioOutcome => ({ status: 'aborted', detail: (signal?.reason as Error | undefined)?.message ?? 'interrupted', startUrl: opts.scenario.startUrl });
  let outcome: ScenarioOutcome;
  let context: BrowserContext | undefined;
  let onAbort: (() => void) | undefined;
  try {
    // Every wait on the browser stops at Ctrl-C: Playwright calls on a closing context can
    // hang, so the session stops waiting for them rather than trusting them to fail.
    context = await unlessInterrupted(b.browser.newContext({
      ...scenarioContextOptions(opts.scenario),
      recordHar: { path: join(opts.dir, ARTIFACTS.har), content: 'omit' },
    }), signal);
    const ctx = context;
    // Ctrl-C: closing the context ends whatever the page is waiting for (navigation, a
    // selector) and writes the HAR of what was loaded so far.
    onAbort = () => { void ctx.close().catch(() => {}); };
    signal?.addEventListener('abort', onAbort, { once: true });
    const page = await unlessInterrupted(ctx.newPage(), signal);
    await unlessInterrupted(recorder.attach(page), signal);
    outcome = await unlessInterrupted(runScenario(opts.scenario, { page, context: ctx }, { lab: opts.lab, log: opts.log, signal, onProgress: opts.onTick, endActivityEarly: opts.endActivityEarly }), signal);
    // Closing the context writes the HAR; closing the browser completes the NetLog.
    await ctx.close().catch((err: Error) => opts.log(`HAR could not be written: ${err.message}`));
  } catch (err) {
    outcome = isInterruption(err) ? aborted()
      : { status: 'page-crashed', detail: (err as Error).message, startUrl: opts.scenario.startUrl, error: (err as Error).message };
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    // Bounded: the cleanup stack ends the browser by its pid if a polite close hangs.
    if (context) await Promise.race([context.close().catch(() => {}), sleep(10_000)]);
    await Promise.race([b.close(), sleep(10_000)]);
    for (const f of [ARTIFACTS.netlog, ARTIFACTS.keylog]) {
      if (existsSync(join(scratch, f))) copyFileSync(join(scratch, f), join(opts.dir, f));
    }
    rmSync(scratch, { recursive: true, force: true });
  }
  return { outcome, requests: recorder.list(), browserVersion };
}
