/**
 * defineScenario(): what a scenario file exports. Plain TypeScript, typed by this helper,
 * validated when loaded (load.ts), no build step:
 *
 *   export default defineScenario({
 *     name: 'example', kind: 'static', startUrl: 'https://example.org/',
 *     steps: async ({ page }) => { await page.getByRole('link').first().click(); },
 *   });
 */
import type { BrowserContext, Page } from 'playwright-core';
import type { LabContext } from './lab.js';
import type { ScenarioInput } from './schema.js';

/** What `steps` gets from the session. */
export interface ScenarioContext {
  /** The page the session opened on the start URL (already loaded when steps start). */
  page: Page;
  /** Its browser context: open more pages (e.g. a second call participant) here. */
  context: BrowserContext;
  /** A line in the run's log (and the progress display). */
  log: (msg: string) => void;
  /** Lab scenarios only: where the session serves each lab role. */
  lab?: LabContext;
  /** The URL the session opened (the start URL, resolved for the lab). */
  startUrl?: string;
  /** Aborted when the session gives up on the steps (timeout, Ctrl-C): stop waiting. */
  signal?: AbortSignal;
}

export type ScenarioSteps = (ctx: ScenarioContext) => Promise<void>;

/** Gives a scenario file its types; validation happens when it is loaded (loadScenario). */
export function defineScenario(scenario: ScenarioInput): ScenarioInput {
  return scenario;
}
