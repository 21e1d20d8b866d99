/**
 * Which label a group of flows gets (a cell: site x asset type x region, or a whole site).
 * A CCA answer beats non-answers (short flows and unknowns say nothing about the server's
 * CCA); among answers the one carrying the most bytes wins, then the most flows, then the
 * name (so ties are stable). Confidence is the byte-weighted mean of that label's flows;
 * share is the winner's part of the bytes the competing labels carried.
 */
export interface LabelTally {
  label: string;
  kind: string;
  bytes: number;
  flows: number;
  assets: number;
  /** Sum of confidence x bytes over the label's flows. */
  confBytes: number;
}

export interface Dominant {
  label: string;
  kind: string;
  confidence: number;
  share: number;
  bytes: number;
  flows: number;
  /** The other labels, largest first, with their byte share. */
  others: Array<{ label: string; share: number }>;
}

function better(a: LabelTally, b: LabelTally): number {
  return b.bytes - a.bytes || b.flows - a.flows || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0);
}

export function dominantLabel(tallies: readonly LabelTally[]): Dominant | null {
  if (tallies.length === 0) return null;
  if (tallies.length === 1) {
    // Most cells have one label: skip the sorting.
    const t = tallies[0];
    return { label: t.label, kind: t.kind, confidence: t.bytes > 0 ? t.confBytes / t.bytes : 0, share: 1, bytes: t.bytes, flows: t.flows, others: [] };
  }
  const answers = tallies.filter((t) => t.kind === 'cca');
  const pool = (answers.length ? answers : tallies).slice().sort(better);
  const win = pool[0];
  const total = pool.reduce((a, t) => a + t.bytes, 0);
  const all = tallies.reduce((a, t) => a + t.bytes, 0);
  return {
    label: win.label,
    kind: win.kind,
    confidence: win.bytes > 0 ? win.confBytes / win.bytes : 0,
    share: total > 0 ? win.bytes / total : 1,
    bytes: win.bytes,
    flows: win.flows,
    others: tallies
      .filter((t) => t.label !== win.label)
      .sort(better)
      .map((t) => ({ label: t.label, share: all > 0 ? t.bytes / all : 0 })),
  };
}

/**
 * Adds tallies with the same label (several runs on one date, several asset types of a site).
 * `owned`: t is a fresh object nobody else holds, so it can be kept instead of copied.
 */
export function mergeTallies(into: Map<string, LabelTally>, t: LabelTally, owned = false): void {
  const cur = into.get(t.label);
  if (!cur) into.set(t.label, owned ? t : { ...t });
  else {
    cur.bytes += t.bytes;
    cur.flows += t.flows;
    cur.assets += t.assets;
    cur.confBytes += t.confBytes;
  }
}
