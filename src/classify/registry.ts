/**
 * Every classifier the pipeline runs, in order. Adding one = one file in classifiers/
 * and one line here (see docs/classifier.md).
 */
import { akamaiClassifier } from './classifiers/akamai.js';
import { bbrClassifier } from './classifiers/bbr.js';
import { copaClassifier } from './classifiers/copa.js';
import { lossAgnosticClassifier } from './classifiers/lossAgnostic.js';
import { lossBasedClassifier } from './classifiers/lossBased.js';
import type { RegisteredClassifier } from './types.js';

export const classifierRegistry: readonly RegisteredClassifier[] = [
  lossBasedClassifier,
  bbrClassifier,
  akamaiClassifier,
  copaClassifier,
  lossAgnosticClassifier,
];
