/** Public surface of crawls (issue 18): the definition, the queue, the worker. */
export { defineCrawl, loadCrawl, resolveTargets, crawlSchema, type CrawlInput, type CrawlDefinition, type CrawlTarget, type LoadedCrawl, type CrawlMode } from './define.js';
export { parseCron, nextFire, cronError, type Cron } from './cron.js';
export { parseSiteList, readSiteList, siteUrl } from './sites.js';
export { CrawlQueue, workerId, backoffMs, type Job, type JobSpec, type JobResult, type Progress, type CrawlState, type JobState } from './queue.js';
export { runWorker, type WorkerEvent, type WorkerOptions, type WorkerSummary } from './worker.js';
export { runJob, JobFailure, pageVisitScenario, type JobContext } from './job.js';
export { formatProgress } from './progress.js';
export { isPostgresUrl, redactUrl, type CrawlBackend, type JobQueue, type CrawlResults, type StoredResult } from './backend.js';
export { SqliteCrawlBackend } from './sqlite-backend.js';
// Postgres (pg, pg-boss) is loaded by these only when a postgres:// store is given.
export { openCrawlBackend, openPostgresBackend, exportPostgresStore } from './open.js';
