/**
 * Colours for verdict labels: the Okabe-Ito palette (distinguishable with the common colour
 * vision deficiencies), with BBR versions in the blue family, loss-based CCAs in warm
 * colours and non-answers in greys. Colour is never the only cue: every use also prints the
 * label (or its short form) as text.
 */
import type { LabelInfo } from './contract.js';

interface Style {
  color: string;
  ink: string;
  short: string;
}

const KNOWN: ReadonlyArray<readonly [string, Style]> = [
  ['CUBIC', { color: '#E69F00', ink: '#000000', short: 'CUBIC' }],
  ['BBRv1', { color: '#0072B2', ink: '#FFFFFF', short: 'BBRv1' }],
  ['BBRv2', { color: '#56B4E9', ink: '#000000', short: 'BBRv2' }],
  ['BBRv3', { color: '#009E73', ink: '#000000', short: 'BBRv3' }],
  ['BBR (other version)', { color: '#A6CEE3', ink: '#000000', short: 'BBR?' }],
  ['NewReno', { color: '#D55E00', ink: '#000000', short: 'Reno' }],
  ['AkamaiCC-like', { color: '#CC79A7', ink: '#000000', short: 'Akamai' }],
  ['Copa', { color: '#F0E442', ink: '#000000', short: 'Copa' }],
  ['Unknown', { color: '#6E6E6E', ink: '#FFFFFF', short: 'Unk.' }],
  ['Application-limited', { color: '#B8B8B8', ink: '#000000', short: 'App-lim.' }],
  ['Short flow', { color: '#DCDCDC', ink: '#000000', short: 'Short' }],
  ['WebRTC media', { color: '#000000', ink: '#FFFFFF', short: 'RTP' }],
];
const BY_NAME = new Map(KNOWN);
/** Aliases the classifier may use for the same class. */
const ALIASES = new Map([
  ['NewReno/Reno', 'NewReno'],
  ['Reno', 'NewReno'],
  ['AkamaiCC', 'AkamaiCC-like'],
  ['BBR', 'BBR (other version)'],
]);

const OTHER_CCA: Style = { color: '#E5D8BD', ink: '#000000', short: '' };
const OTHER_NON_ANSWER: Style = { color: '#9A9A9A', ink: '#000000', short: '' };

export function labelStyle(name: string, kind: string): Style {
  const known = BY_NAME.get(ALIASES.get(name) ?? name);
  if (known) return known;
  const base = kind === 'cca' ? OTHER_CCA : OTHER_NON_ANSWER;
  return { ...base, short: name.length > 8 ? `${name.slice(0, 7)}…` : name };
}

const ORDER = new Map(KNOWN.map(([n], i) => [n, i]));
const KIND_RANK: Record<string, number> = { cca: 0, unknown: 1, 'application-limited': 2, 'short-flow': 3, media: 4 };

/** Legend order: known CCAs, other CCAs (A-Z), then the non-answers. */
export function labelInfos(labels: ReadonlyArray<{ name: string; kind: string }>): LabelInfo[] {
  const seen = new Map<string, string>();
  for (const l of labels) if (!seen.has(l.name)) seen.set(l.name, l.kind);
  const rank = (name: string, kind: string): [number, number, string] => {
    const known = ORDER.get(ALIASES.get(name) ?? name);
    return [KIND_RANK[kind] ?? 5, known ?? 1000, name];
  };
  return [...seen.entries()]
    .sort(([a, ka], [b, kb]) => {
      const [x1, y1, z1] = rank(a, ka);
      const [x2, y2, z2] = rank(b, kb);
      return x1 - x2 || y1 - y2 || (z1 < z2 ? -1 : z1 > z2 ? 1 : 0);
    })
    .map(([name, kind]) => ({ name, kind, ...labelStyle(name, kind) }));
}
