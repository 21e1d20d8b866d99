/** Public surface of the run-directory schemas (see docs/report.md, "Run directory files"). */
export * from './schema.js';
export { readRunDir, readLabBench, parseFile, crossCheck, ResultsFileError, RUN_FILES, type RunData } from './read.js';
export { writeRunFiles, writeJsonAtomic, type RunFilesInput } from './write.js';
export { labBenchSchema, labBenchFromOutcomes, LAB_BENCH_SCHEMA_VERSION, type LabBench } from './labBench.js';
export { verdictRecordFromClassifier, spacedPeaks, type ClassifierVerdictLike } from './fromClassifier.js';
export { voteFileSchema, voteGroupSchema, ballotSchema, writeVoteFile, readVoteFile, VOTE_SCHEMA_VERSION, type VoteFile, type VoteGroupRecord } from './vote.js';
export { summaryFileSchema, writeSummaryFile, readSummaryFile, SUMMARY_FILE, SUMMARY_SCHEMA_VERSION, type SummaryFile } from './summary.js';
