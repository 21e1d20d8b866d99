/** Public surface of the report builder (the CLI's `ccbrowse report` calls buildReport). */
export { buildReport, type ReportOptions, type ReportStats } from './build.js';
export { safeJson, escapeHtml, contentSecurityPolicy, pageHtml } from './html.js';
export { siteSlug } from './slug.js';
export { labelInfos, labelStyle } from './palette.js';
export { toCsv, csvCell, csvLine } from './csv.js';
export { frontendBundle, FRONTEND_DIR } from './bundle.js';
export * from './contract.js';
