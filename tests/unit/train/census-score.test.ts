import { describe, expect, it } from 'vitest';
import type { ExpectedCell } from '../../../src/lab/census-truth.js';
import { censusTable, judge, scoreCensus, shares, type ObservedCell } from '../../../src/train/census-score.js';

const cell = (host: string, region: string, cca: string, protocol: 'tcp' | 'quic' = 'tcp', silent = false): ExpectedCell => ({ host, region, origin: 'o', protocol, cca, silent });
const seen = (host: string, region: string, label: string, confidence = 0.95, flows?: Array<[string, number]>): ObservedCell =>
  ({ host, region, verdict: { label, confidence }, flows: (flows ?? [[label, confidence], [label, confidence]]).map(([l, c]) => ({ label: l, confidence: c })) });

describe('census scoring', () => {
  it('judges a verdict: right, Unknown (or a non-answer), confident-wrong at the minimum answer, wrong below it, missing', () => {
    expect(judge('CUBIC', { label: 'CUBIC', confidence: 0.5 }, 0.8)).toBe('right');
    expect(judge('CUBIC', { label: 'Unknown', confidence: 0.9 }, 0.8)).toBe('unknown');
    expect(judge('CUBIC', { label: 'Short flow', confidence: 1 }, 0.8)).toBe('unknown');
    expect(judge('CUBIC', { label: 'BBRv1', confidence: 0.8 }, 0.8)).toBe('confident-wrong');
    expect(judge('CUBIC', { label: 'BBRv1', confidence: 0.79 }, 0.8)).toBe('wrong');
    expect(judge('CUBIC', undefined, 0.8)).toBe('missing');
  });

  it('scores every crawled cell per region and per controller, and a host that differs per region per region', () => {
    const expected = [
      cell('a.test', 'us', 'cubic'), cell('a.test', 'ap', 'bbr'),
      cell('b.test', 'us', 'reno'), cell('b.test', 'ap', 'newreno', 'quic'),
      cell('c.test', 'us', 'vegas'), cell('c.test', 'ap', 'vegas'),
      cell('d.test', 'us', 'cubic'), // not crawled: not a cell of this crawl
    ];
    const observed = [
      seen('a.test', 'us', 'CUBIC'), seen('a.test', 'ap', 'CUBIC', 0.9, [['CUBIC', 0.9], ['Unknown', 0.5]]),
      seen('b.test', 'us', 'NewReno'), seen('b.test', 'ap', 'Unknown', 0.4),
      seen('c.test', 'us', 'Vegas'),
      seen('z.test', 'us', 'CUBIC'),
    ];
    const s = scoreCensus(expected, observed, { hosts: ['a.test', 'b.test', 'c.test'], regions: ['us', 'ap'], minAnswer: 0.8, regionDependentHosts: new Set(['a.test', 'b.test']) });
    expect(s.cells.map((c) => `${c.host}/${c.region}:${c.outcome}`)).toEqual([
      'a.test/us:right', 'a.test/ap:confident-wrong', 'b.test/us:right', 'b.test/ap:unknown', 'c.test/us:right', 'c.test/ap:missing']);
    expect(s.total).toEqual({ cells: 6, right: 3, unknown: 1, wrong: 0, confidentWrong: 1, missing: 1 });
    expect(s.perRegion.ap).toEqual({ cells: 3, right: 0, unknown: 1, wrong: 0, confidentWrong: 1, missing: 1 });
    expect(s.perController['BBRv1/tcp']).toEqual({ cells: 1, right: 0, unknown: 0, wrong: 0, confidentWrong: 1, missing: 0 });
    expect(s.perController['NewReno/quic'].unknown).toBe(1);
    expect(s.regionDependent).toEqual({ cells: 4, right: 2, unknown: 1, wrong: 0, confidentWrong: 1, missing: 0 });
    // Per flow: each profile's verdict of the measured cells (a/ap: CUBIC confident-wrong, Unknown).
    expect(s.perFlow).toMatchObject({ cells: 10, right: 6, unknown: 3, confidentWrong: 1 });
    expect(s.unexpected).toEqual([{ host: 'z.test', region: 'us' }]);
    expect(shares(s.total)).toEqual({ measured: 5, accuracy: 0.6, unknown: 0.2, confidentWrong: 0.2 });
    const table = censusTable(s);
    expect(table).toContain('| census (site x region) | 6 | 5 | 3 | 60.0% | 20.0% | 20.0% |');
    expect(table).toContain('confident-wrong a.test [ap] is BBRv1/tcp, read CUBIC (0.90)');
  });

  it('leaves out hosts a region does not serve and silent origins', () => {
    const s = scoreCensus([cell('a.test', 'us', 'cubic'), cell('a.test', 'eu', 'cubic', 'tcp', true)], [], { hosts: ['a.test'], regions: ['us', 'eu', 'ap'], minAnswer: 0.8, regionDependentHosts: new Set() });
    expect(s.cells.map((c) => c.region)).toEqual(['us']);
    expect(shares(s.total)).toEqual({ measured: 0, accuracy: 0, unknown: 0, confidentWrong: 0 });
  });
});
