/**
 * Analysing a run directory (after a run, or again with `ccbrowse analyze`): each profile's
 * capture traced, tied to the HAR and classified (analyze.ts), then the verdicts fused across
 * profiles and written beside the raw data. Loads no network or browser code.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadModel } from '../classify/model.js';
import type { Scenario } from '../scenario/schema.js';
import type { RunInfo } from '../results/schema.js';
import { writeRunFiles } from '../results/write.js';
import { SUMMARY_FILE, SUMMARY_SCHEMA_VERSION, writeSummaryFile } from '../results/summary.js';
import { repoRoot } from '../util/paths.js';
import { analyzeProfile, modelId, type ProfileAnalysis } from './analyze.js';
import { summarize, summarizeAssetTypes, summarizeHostAssetTypes, summarizeUnanswered, type AssetTypeRow, type HostAssetTypeRow, type SummaryRow } from './summary.js';

export function defaultModelPath(): string {
  return resolve(repoRoot(), 'models', 'ccbrowse-model.json');
}

/** Analyses (or re-analyses) a run directory's profiles and writes flows/assets/verdicts and the fused rows (summary.json). */
export async function analyzeRunDir(dir: string, opts: { modelPath?: string; rules?: Scenario['assetRules']; profiles: string[]; runId?: string; lab?: boolean }): Promise<{
  summary: SummaryRow[]; byAssetType: AssetTypeRow[]; byHostAssetType: HostAssetTypeRow[]; byteCoverage: Record<string, number>; analyses: ProfileAnalysis[];
}> {
  const modelPath = opts.modelPath ?? defaultModelPath();
  const model = loadModel(modelPath);
  const analyses: ProfileAnalysis[] = [];
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as RunInfo;
  for (const p of opts.profiles) {
    // The bottleneck the run recorded, not today's profile file of the same name.
    const bottleneck = run.profiles.find((r) => r.name === p)?.bottleneck;
    const ref = run.profiles.find((r) => r.name === p);
    const notForClassification = ref?.forClassification === false;
    try { analyses.push(await analyzeProfile(join(dir, p), p, model, opts.rules ?? [], { lab: opts.lab, bottleneck, rateKbit: ref?.rateKbit, notForClassification })); } catch { /* a profile without capture: nothing to analyse */ }
  }
  const runId = opts.runId ?? run.runId;
  const analysedAt = new Date().toISOString();
  const modelName = modelId(modelPath);
  const rows = {
    summary: summarize(analyses, model.calibration),
    byAssetType: summarizeAssetTypes(analyses, model.calibration),
    byHostAssetType: summarizeHostAssetTypes(analyses, model.calibration),
    byteCoverage: Object.fromEntries(analyses.map((a) => [a.profile, a.byteCoverage])),
    unanswered: summarizeUnanswered(analyses),
  };
  // Before run.json (written last by writeRunFiles): a run directory that has run.json has its summary.
  writeSummaryFile(join(dir, SUMMARY_FILE), {
    schemaVersion: SUMMARY_SCHEMA_VERSION, runId, model: modelName, analysedAt,
    byHost: rows.summary, byAssetType: rows.byAssetType, byHostAssetType: rows.byHostAssetType, byteCoverage: rows.byteCoverage, unanswered: rows.unanswered,
  });
  writeRunFiles(dir, {
    run,
    flows: { schemaVersion: 1, runId, flows: analyses.flatMap((a) => a.flows) },
    assets: { schemaVersion: 1, runId, assets: analyses.flatMap((a) => a.assets) },
    verdicts: { schemaVersion: 1, runId, model: modelName, analysedAt, verdicts: analyses.flatMap((a) => a.verdicts) },
  });
  return { ...rows, analyses };
}
