/**
 * What scenario files import: `import { defineScenario, acceptConsent } from '../src/scenario/index.js'`.
 * Loading a scenario through this module pulls in no browser code (playwright types only).
 */
export { defineScenario, type ScenarioContext, type ScenarioSteps } from './define.js';
export {
  scenarioSchema, SCENARIO_KINDS, DEFAULT_PROFILES,
  type Scenario, type ScenarioInput, type ScenarioKind, type AssetRuleInput, type BrowserOptions, type ConsentOptions as ScenarioConsentOptions,
} from './schema.js';
export { labBase, labUrl, labDefaultHosts, labAssetRules, resolveLabUrl, type LabContext, type LabRole } from './lab.js';
export {
  acceptConsent, dismissPopups, ensurePlaying, waitForPlayback, keepActivity, scrollThrough, clickFirstVisible,
  sampleMedia, webrtcCounters, installPageHooks, sleep, CMP_ACCEPT_SELECTORS,
  type ConsentOptions, type ConsentResult, type EnsurePlayingOptions, type WaitForPlaybackOptions, type PlaybackWait,
  type KeepActivityOptions, type ActivityStatus, type WebRtcCounters,
} from './helpers.js';
export { ASSET_TYPES, type AssetType, type AssetRule } from '../correlate/asset-type.js';
export {
  defineExpectations, expectationsSchema, expectationSetSchema, NON_ANSWER_POLICIES, EXPECTATION_ASSET_TYPES,
  type ExpectationsInput, type Expectations, type ExpectationRuleInput, type ExpectationRule, type ExpectationSetInput, type ExpectationSet, type NonAnswerPolicy,
} from './expectations.js';
