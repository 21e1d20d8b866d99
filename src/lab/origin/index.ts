export { startOrigin, startSilentOrigin, type OriginOptions, type RunningOrigin } from './start.js';
export { readRequestLog, type RequestLogEntry } from './request-log.js';
export { MAX_BULK_BYTES } from './bytes.js';
export { LIVE_MANIFEST_PATH } from './handler.js';
export { SIGNAL_PATH } from './signal.js';
