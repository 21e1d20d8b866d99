/**
 * Baselines and drift: what each asset type was served with before, and what changed since.
 * A baseline is a previous check's JSON (its `observations`), or the results store: the
 * newest measured date of each site and region (`snapshot`, the report's landscape), on or
 * before a day when the path ends in `@YYYY-MM-DD`. It is read before anything is measured,
 * so a check that indexes its own runs into the same store compares with what came before.
 *
 * Drift is marked for every asset type whose answer changed: `moved` (one controller to
 * another: "video moved from BBRv1 to CUBIC in sg"), `lost` (a controller before, no answer
 * now) and `found` (no answer before, a controller now). Non-answers that changed into other
 * non-answers are not drift. Drift is reported, it does not change the exit code.
 */
import { existsSync, openSync, readSync, closeSync } from 'node:fs';
import { readCheckReport, type Drift, type ObservedType } from '../results/check.js';
import { openStore, snapshot } from '../store/index.js';
import { BadInputError } from '../util/errors.js';
import { isAnswer } from './observe.js';

export interface BaselineEntry {
  site: string;
  region: string;
  assetType: string;
  label: string;
  kind: string;
  /** When it was measured (the check's time, or the store's date). */
  at?: string;
}

export interface Baseline {
  source: string;
  kind: 'check' | 'store';
  asOf: string | null;
  entries: BaselineEntry[];
}

const SQLITE_MAGIC = 'SQLite format 3\u0000';

function isSqlite(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(16);
    return readSync(fd, buf, 0, 16, 0) === 16 && buf.toString('latin1') === SQLITE_MAGIC;
  } finally {
    closeSync(fd);
  }
}

/** A previous check's JSON, or a results store (`store.sqlite` or `store.sqlite@2025-06-01`). */
export function loadBaseline(spec: string): Baseline {
  const dated = /^(.*)@(\d{4}-\d{2}-\d{2})$/.exec(spec);
  const path = existsSync(spec) || !dated ? spec : dated[1];
  const asOf = path === spec ? null : dated![2];
  if (!existsSync(path)) {
    throw new BadInputError(`baseline not found: ${path}`, 'give a previous check\'s JSON (ccbrowse check --json > F) or a results store (runs/ccbrowse.sqlite, optionally @YYYY-MM-DD)');
  }
  if (isSqlite(path)) {
    const store = openStore(path, { readonly: true });
    try {
      const snap = snapshot(store, asOf ?? undefined);
      return {
        source: spec, kind: 'store', asOf,
        entries: snap.cells.map((c) => ({ site: c.site, region: c.region, assetType: c.assetType, label: c.dominant.label, kind: c.dominant.kind, at: c.date })),
      };
    } finally {
      store.close();
    }
  }
  if (asOf !== null) throw new BadInputError(`baseline ${spec}: a date only goes with a results store`, 'give the check JSON without @DATE');
  const report = readCheckReport(path);
  return {
    source: spec, kind: 'check', asOf: null,
    entries: report.observations.map((o) => ({ site: o.site, region: o.region, assetType: o.assetType, label: o.label, kind: o.kind, at: report.createdAt })),
  };
}

const key = (e: { site: string; region: string; assetType: string }) => `${e.site}\u0000${e.region}\u0000${e.assetType}`;

/** Every asset type whose answer changed since the baseline. */
export function driftSince(baseline: Baseline, now: readonly ObservedType[]): Drift[] {
  const before = new Map(baseline.entries.map((e) => [key(e), e]));
  const sites = new Set(now.map((o) => o.site));
  const out: Drift[] = [];
  for (const o of now) {
    const b = before.get(key(o));
    if (!b || b.label === o.label) continue;
    const was = isAnswer(b.kind);
    const is = isAnswer(o.kind);
    if (!was && !is) continue;
    const change = was && is ? 'moved' : was ? 'lost' : 'found';
    const where = `in ${o.region}${sites.size > 1 ? ` (${o.site})` : ''}`;
    const message = change === 'moved'
      ? `${o.assetType} moved from ${b.label} to ${o.label} ${where}`
      : change === 'lost'
        ? `${o.assetType} was ${b.label}, now no answer (${o.label}) ${where}`
        : `${o.assetType} had no answer (${b.label}), now ${o.label} ${where}`;
    out.push({ scenario: o.scenario, site: o.site, region: o.region, assetType: o.assetType, change, from: { label: b.label, kind: b.kind, at: b.at }, to: { label: o.label, kind: o.kind }, message });
  }
  return out.sort((a, b) => a.region.localeCompare(b.region) || a.site.localeCompare(b.site) || a.assetType.localeCompare(b.assetType));
}
