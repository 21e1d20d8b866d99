import { describe, expect, it } from 'vitest';
import { majorityVote, voteGroups, type Ballot, type RunForVote } from '../../../src/session/vote.js';
import type { AssetTypeRow, SummaryRow } from '../../../src/session/summary.js';

let n = 0;
const cca = (label: string, confidence = 0.8): Ballot => ({ runId: `r${++n}`, label, kind: 'cca', confidence });
const non = (label: 'Short flow' | 'Application-limited' | 'Unknown'): Ballot =>
  ({ runId: `r${++n}`, label, kind: label === 'Short flow' ? 'short-flow' : label === 'Unknown' ? 'unknown' : 'application-limited', confidence: 0 });

describe('majorityVote', () => {
  it('unanimous runs: that label, their mean confidence', () => {
    const v = majorityVote([cca('BBRv1', 0.9), cca('BBRv1', 0.7), cca('BBRv1', 0.8)]);
    expect(v).toMatchObject({ label: 'BBRv1', kind: 'cca', votes: { BBRv1: 3 }, ballots: 3, answers: 3, winnerVotes: 3 });
    expect(v.confidence).toBeCloseTo(0.8, 4);
  });

  it('Short flow and Application-limited never outvote a CCA label; they lower the confidence', () => {
    const v = majorityVote([non('Short flow'), cca('CUBIC', 0.8), non('Short flow'), non('Application-limited')]);
    expect(v.label).toBe('CUBIC');
    expect(v.votes).toEqual({ 'Short flow': 2, CUBIC: 1, 'Application-limited': 1 });
    // mean 0.8 x agreement 1/1 x (0.5 + 0.5 x 1 answer / 4 ballots)
    expect(v.confidence).toBeCloseTo(0.8 * (0.5 + 0.5 / 4), 4);
    expect(v.reason).toMatch(/1 of 4 run\(s\) say CUBIC/);
    // The same support without abstentions is worth more.
    expect(majorityVote([cca('CUBIC', 0.8)]).confidence).toBeGreaterThan(v.confidence);
  });

  it('an Unknown (profiles disagreed) abstains too, it does not outvote', () => {
    expect(majorityVote([non('Unknown'), non('Unknown'), cca('BBRv2', 0.6)]).label).toBe('BBRv2');
  });

  it('a plurality wins, with confidence scaled by agreement', () => {
    const v = majorityVote([cca('CUBIC', 0.9), cca('BBRv1', 0.99), cca('CUBIC', 0.7)]);
    expect(v.label).toBe('CUBIC');
    expect(v.winnerVotes).toBe(2);
    expect(v.confidence).toBeCloseTo(0.8 * (2 / 3), 4);
  });

  it('a tie for first place between CCA labels is Unknown, even when one side is more confident', () => {
    const v = majorityVote([cca('CUBIC', 0.95), cca('BBRv1', 0.3)]);
    expect(v).toMatchObject({ label: 'Unknown', kind: 'unknown', confidence: 0, winnerVotes: 0, answers: 2 });
    expect(v.reason).toMatch(/tie: BBRv1 1 vs CUBIC 1/);
    expect(majorityVote([cca('CUBIC'), cca('BBRv1'), non('Short flow'), cca('CUBIC'), cca('BBRv1')]).label).toBe('Unknown');
    // A tie below first place does not matter.
    expect(majorityVote([cca('CUBIC'), cca('CUBIC'), cca('BBRv1'), cca('NewReno')]).label).toBe('CUBIC');
  });

  it('no CCA at all: the most frequent non-answer, ties to Unknown, then Application-limited, then Short flow', () => {
    expect(majorityVote([non('Short flow'), non('Short flow'), non('Unknown')])).toMatchObject({ label: 'Short flow', kind: 'short-flow', confidence: 0 });
    expect(majorityVote([non('Short flow'), non('Unknown')]).label).toBe('Unknown');
    expect(majorityVote([non('Short flow'), non('Application-limited')]).label).toBe('Application-limited');
  });

  it('WebRTC media, and no ballots at all', () => {
    const m = (): Ballot => ({ runId: 'x', label: 'WebRTC media', kind: 'media', confidence: 1 });
    expect(majorityVote([m(), m(), non('Short flow')])).toMatchObject({ label: 'WebRTC media', kind: 'media' });
    expect(majorityVote([m(), m(), non('Short flow')]).confidence).toBeCloseTo(2 / 3, 4);
    expect(majorityVote([])).toMatchObject({ label: 'Unknown', ballots: 0, confidence: 0 });
  });
});

describe('voteGroups', () => {
  const typeRow = (assetType: string, label: string, kind = 'cca', confidence = 0.8): AssetTypeRow =>
    ({ assetType, hosts: [`${assetType}.example`], protocols: ['tcp'], flows: 1, bytes: 1000, label, kind, confidence, reason: '', perProfile: {} });
  const hostRow = (host: string, label: string, kind = 'cca'): SummaryRow =>
    ({ host, assetTypes: ['video'], protocol: 'quic', flows: 1, bytes: 1000, label, kind, confidence: 0.8, reason: '', perProfile: {} });
  const run = (runId: string, types: AssetTypeRow[], hosts: SummaryRow[]): RunForVote => ({ runId, byAssetType: types, summary: hosts });

  it('one group per asset type and per host; a run that never saw a group casts no ballot for it', () => {
    const groups = voteGroups([
      run('a', [typeRow('video', 'BBRv1'), typeRow('image', 'CUBIC')], [hostRow('cdn.example', 'BBRv1')]),
      run('b', [typeRow('video', 'Short flow', 'short-flow', 0)], [hostRow('cdn.example', 'BBRv1')]),
      run('c', [typeRow('video', 'BBRv1'), typeRow('image', 'Short flow', 'short-flow', 0)], [hostRow('cdn.example', 'Unknown', 'unknown')]),
    ]);
    expect(groups.map((g) => `${g.dimension}:${g.key}`)).toEqual(['asset-type:image', 'asset-type:video', 'host:cdn.example']);
    const video = groups.find((g) => g.key === 'video')!;
    expect(video).toMatchObject({ label: 'BBRv1', ballots: 3, answers: 2, winnerVotes: 2, related: ['video.example'], protocols: ['tcp'] });
    expect(video.perRun.map((b) => `${b.runId}:${b.label}`)).toEqual(['a:BBRv1', 'b:Short flow', 'c:BBRv1']);
    const image = groups.find((g) => g.key === 'image')!;
    expect(image).toMatchObject({ label: 'CUBIC', ballots: 2, answers: 1 });
    const host = groups.find((g) => g.dimension === 'host')!;
    expect(host).toMatchObject({ label: 'BBRv1', ballots: 3, winnerVotes: 2, related: ['video'], protocols: ['quic'] });
  });
});
