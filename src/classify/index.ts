/** Public surface of the classifier. */
export { classifyFlow } from './classifyFlow.js';
export { fuseProfiles, decideFromClaims } from './fusion.js';
export { trainModel, loadModel, saveModel, parseModel, defaultModel, modelSchema, MODEL_SCHEMA_VERSION } from './model.js';
export type { Model, LabelledSeries, TrainOptions } from './model.js';
export { defaultPipelineConfig, pipelineConfigSchema } from './config.js';
export type { PipelineConfig } from './config.js';
export { extractFlowFeatures } from './features.js';
export type { FlowFeatures } from './features.js';
export { classifierRegistry } from './registry.js';
export { defineClassifier, UNKNOWN } from './types.js';
export type { Classifier, RegisteredClassifier, Claim, LabelledFeatures } from './types.js';
export { APP_LIMITED, SHORT_FLOW, SHAPE_CLUSTERS, shapeClusterOf, verdictSchema } from './verdict.js';
export type { Verdict, VerdictKind, FlowEvidence, SegmentEvidence, ShapeCluster } from './verdict.js';
export { BBR_V1, BBR_V2, BBR_OTHER } from './classifiers/bbr.js';
export { AKAMAI } from './classifiers/akamai.js';
export { COPA } from './classifiers/copa.js';
