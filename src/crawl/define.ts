/**
 * defineCrawl(): what a crawl file exports (issue 18). A crawl is targets x regions x repeats:
 * each target is a scenario file, a bare URL or a site list (CSV or a plain top-list), run in
 * browser mode (its own scenario, or a generic page visit for a URL) or probe mode (one fetch
 * through the bottleneck, no page); through the given profiles, a few at once, optionally on
 * a cron schedule. Loaded by the one user-file loader; relative paths are the file's own.
 */
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { BadInputError } from '../util/errors.js';
import { loadUserFile, shownPath } from '../util/user-file.js';
import { cronError } from './cron.js';
import { readSiteList, siteUrl } from './sites.js';

const MODES = ['browser', 'probe'] as const;
export type CrawlMode = (typeof MODES)[number];

const regionName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,15}$/, '1-16 lower-case letters, digits or "-"');
const httpUrl = z.string().url('must be an absolute URL').refine((u) => /^https?:\/\//i.test(u), 'must be an http:// or https:// URL');

const targetSchema = z.union([
  /** A scenario file: the browser runs it (mode is always browser). */
  z.object({ scenario: z.string().min(1), mode: z.literal('browser').default('browser') }).strict(),
  /** One URL: a generic page visit (browser) or a fetch of that URL (probe). */
  z.object({ url: httpUrl, mode: z.enum(MODES).default('browser') }).strict(),
  /** A site list file: each line or row a target in the given mode. */
  z.object({ sites: z.string().min(1), mode: z.enum(MODES).default('browser'), limit: z.number().int().min(1).optional() }).strict(),
]);

export const crawlSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, '1-32 lower-case letters, digits or "-"'),
  description: z.string().optional(),
  targets: z.array(targetSchema).min(1, 'give at least one target'),
  /** Regions the crawl is measured from: a worker takes the jobs of its own region(s). */
  regions: z.array(regionName).min(1).default(['local']),
  /** How many times each target is measured from each region. */
  repeats: z.number().int().min(1).max(100).default(1),
  /** Network profiles every job runs through (shipped names or files). */
  profiles: z.array(z.string().min(1)).min(1).default(['nebby-50', 'nebby-100']),
  /** Most jobs one worker runs at once (each in its own namespaces); fewer while the host disturbs the probes' traces. */
  concurrency: z.number().int().min(1).max(16).default(1),
  /** Keep `concurrency` jobs at once even when the host disturbs the traces (jobs-at-once.ts). */
  fixedConcurrency: z.boolean().default(false),
  /** Cron schedule (UTC): a worker enqueues a new round when it fires. */
  schedule: z.string().refine((s) => cronError(s) === undefined, { error: (i) => cronError(String(i.input)) ?? 'bad schedule' }).optional(),
  /** The running lab (its name) the targets are measured against; absent: the internet. */
  lab: z.string().regex(/^[a-z0-9-]{1,16}$/).optional(),
  /** Failed attempts retried before a job is recorded as failed. */
  retries: z.number().int().min(0).max(10).default(2),
  /** Back-off before the first retry; doubles at each further one. */
  backoffSeconds: z.number().min(0).max(3600).default(30),
  /** One job's time limit (all its profiles). */
  jobTimeoutSeconds: z.number().int().min(10).max(7200).default(900),
  /** Generic page visits (a bare URL in browser mode): how long to stay on the page. */
  visitSeconds: z.number().min(0).max(600).default(20),
  /**
   * Probe mode: end each transfer (TCP, or HTTP/3 read with Chromium's key log as it grows) once
   * the model's calibrated verdict named the same CCA at 4 checkpoints in a row (as `ccbrowse
   * probe --stop-when-stable`).
   */
  stopWhenStable: z.boolean().default(false),
  /**
   * Probe mode: a probe whose bottleneck the measuring host held back beyond the classifier's
   * bounds (its verdict would be withheld as a disturbed trace) is measured again, this many
   * times at most; the set-aside capture stays on disk and is named in the result.
   */
  remeasureDisturbed: z.number().int().min(0).max(5).default(1),
}).strict().superRefine((c, ctx) => {
  c.targets.forEach((t, i) => {
    if (t.mode === 'probe' && c.lab === undefined) {
      ctx.addIssue({ code: 'custom', path: ['targets', i, 'mode'], message: 'probe mode needs `lab` (probes fetch from lab origins; internet probes are not implemented)' });
    }
  });
});

export type CrawlInput = z.input<typeof crawlSchema>;
export type CrawlDefinition = z.output<typeof crawlSchema>;

/** Gives a crawl file its types; validation happens when it is loaded (loadCrawl). */
export function defineCrawl(crawl: CrawlInput): CrawlInput {
  return crawl;
}

/** One thing to measure, resolved: a scenario file (absolute) or a URL, and the mode. */
export interface CrawlTarget {
  /** Stable key within the crawl (part of the job id): the URL, or scenario:<path>. */
  key: string;
  mode: CrawlMode;
  url?: string;
  scenarioFile?: string;
}

export interface LoadedCrawl {
  file: string;
  definition: CrawlDefinition;
  targets: CrawlTarget[];
}

/** Expands the targets (site lists read, paths resolved from `baseDir`), repeats dropped. */
export function resolveTargets(def: CrawlDefinition, baseDir: string): CrawlTarget[] {
  const out = new Map<string, CrawlTarget>();
  const add = (t: CrawlTarget) => { if (!out.has(t.key)) out.set(t.key, t); };
  for (const t of def.targets) {
    if ('scenario' in t) {
      const file = resolve(baseDir, t.scenario);
      add({ key: `scenario:${file}`, mode: 'browser', scenarioFile: file });
    } else if ('url' in t) {
      const url = siteUrl(t.url);
      add({ key: `${t.mode}:${url}`, mode: t.mode, url });
    } else {
      const file = resolve(baseDir, t.sites);
      let urls: string[];
      try {
        urls = readSiteList(file);
      } catch (err) {
        throw new BadInputError(`site list ${shownPath(file)}: ${(err as Error).message}`, 'one URL or domain a line, or a CSV with a url/domain column');
      }
      for (const url of urls.slice(0, t.limit ?? urls.length)) add({ key: `${t.mode}:${url}`, mode: t.mode, url });
    }
  }
  return [...out.values()];
}

/** Loads and validates a crawl file and resolves its targets; errors exit 2 and name the file. */
export async function loadCrawl(file: string): Promise<LoadedCrawl> {
  const definition = await loadUserFile(file, { what: 'crawl', helper: 'defineCrawl', example: 'crawls/lab-probe.ts', schema: crawlSchema, json: true });
  return { file: resolve(file), definition, targets: resolveTargets(definition, dirname(resolve(file))) };
}
