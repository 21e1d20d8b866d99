/**
 * A run's cells: per asset type and verdict label, the bytes, flows and assets. An asset
 * counts toward the label of the flow that carried it; a flow that carried several asset
 * types counts once in each. Assets with no flow (correlation failed) or whose flow has no
 * verdict are left out: they say nothing about a CCA.
 */
import type { AssetRecord, VerdictRecord } from '../results/schema.js';

export interface RunCell {
  assetType: string;
  label: string;
  kind: string;
  bytes: number;
  flows: number;
  assets: number;
  confBytes: number;
}

export function cellsOfRun(assets: readonly AssetRecord[], verdicts: readonly VerdictRecord[]): RunCell[] {
  const byFlow = new Map(verdicts.map((v) => [v.flowId, v]));
  const cells = new Map<string, RunCell & { flowIds: Set<string> }>();
  for (const a of assets) {
    if (a.flowId === null) continue;
    const v = byFlow.get(a.flowId);
    if (!v) continue;
    const key = `${a.assetType}\u0000${v.label}`;
    let c = cells.get(key);
    if (!c) {
      c = { assetType: a.assetType, label: v.label, kind: v.kind, bytes: 0, flows: 0, assets: 0, confBytes: 0, flowIds: new Set() };
      cells.set(key, c);
    }
    // A 304 or an empty body still shows the flow served the type: weigh it as one byte.
    const w = Math.max(1, a.bytes);
    c.bytes += w;
    c.assets += 1;
    c.confBytes += v.confidence * w;
    c.flowIds.add(a.flowId);
  }
  return [...cells.values()].map(({ flowIds, ...c }) => ({ ...c, flows: flowIds.size }));
}
