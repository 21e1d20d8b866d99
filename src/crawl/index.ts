/** Public surface of crawls (issue 18): the definition, the queue, the worker. */
export { defineCrawl, loadCrawl, resolveTargets, crawlSchema, type CrawlInput, type CrawlDefinition, type CrawlTarget, type LoadedCrawl, type CrawlMode } from './define.js';
export { parseCron, nextFire, cronError, type Cron } from './cron.js';
export { parseSiteList, readSiteList, siteUrl } from './sites.js';
export { CrawlQueue, workerId, backoffMs, type Job, type JobSpec, type JobResult, type Progress, type CrawlState, type JobState } from './queue.js';
export { runWorker, type WorkerEvent, type WorkerOptions, type WorkerSummary } from './worker.js';
export { runJob, JobFailure, pageVisitScenario, type JobContext } from './job.js';
export { formatProgress } from './progress.js';
