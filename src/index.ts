/**
 * The public API for users' own files: `import { defineScenario } from 'ccbrowse'`. Every
 * define* helper and its types (defineExpectations comes with the scenario's), and what
 * scenario steps use. Loading it pulls in no browser
 * and starts nothing (the loader, util/user-file.ts, resolves 'ccbrowse' to this file).
 */
export { defineProfile, type ProfileInput, type Profile } from './shaper/profile.js';
export { defineLab, TCP_CCAS, type LabConfigInput, type LabConfig, type OriginConfig, type RegionConfig } from './lab/config.js';
export * from './scenario/index.js';
export { defineGrid, type GridInput, type Grid } from './train/grid.js';
export { defineCrawl, type CrawlInput, type CrawlDefinition } from './crawl/define.js';
export { syntheticInternet, syntheticSiteList, type SyntheticInternetOptions } from './lab/synthetic-internet.js';
