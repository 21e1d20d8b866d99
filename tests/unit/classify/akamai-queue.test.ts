/**
 * FAST's held level (the AkamaiCC-like answer without a periodic back-off) keeps its alpha
 * queued above the BDP; Vegas, which also holds a flat level where its window settles, keeps
 * 2-4 packets (akamai.ts held.minQueuedPackets). The fixture: a lab Vegas flow behind `video`
 * (grid video-rtt0) that read AkamaiCC-like at 0.94 before the check, and a lab FAST
 * measurement through both Nebby profiles (issue 17's round q12).
 */
import { describe, expect, it } from 'vitest';
import { classifyFlow, fuseProfiles } from '../../../src/classify/index.js';
import { toSeries } from '../../../src/train/dataset.js';
import type { BifSeries } from '../../../src/trace/types.js';
import { labSeriesFlows } from './labSeriesFlows.js';
import { shippedModel } from './shippedModel.js';

const flows = labSeriesFlows('vegas-held-level.json.gz');
const akamaiOf = (v: ReturnType<typeof classifyFlow>) => (v.evidence as { classifiers?: Record<string, Record<string, unknown>> } | undefined)?.classifiers?.akamai;

describe('the queue a held flat level keeps', () => {
  const model = shippedModel();
  const vegas = flows.find((f) => f.label === 'Vegas')!;
  const fast = flows.filter((f) => f.label === 'AkamaiCC-like');

  it('Vegas behind video: a flat level with ~4 packets queued is not FAST\'s signature', () => {
    const v = classifyFlow(toSeries(vegas), model);
    const a = akamaiOf(v)!;
    expect(a.queuedPackets as number).toBeGreaterThan(2);
    expect(a.queuedPackets as number).toBeLessThan(6);
    expect(a.held).toBe(false);
    expect(v.label).not.toBe('AkamaiCC-like');
  });

  it('FAST through both Nebby profiles: ~20 packets queued, AkamaiCC-like, fused too', () => {
    const vs = fast.map((f) => classifyFlow(toSeries(f), model));
    for (const v of vs) {
      expect(akamaiOf(v)!.queuedPackets as number).toBeGreaterThan(15);
      expect(v.label).toBe('AkamaiCC-like');
    }
    expect(fuseProfiles(vs, { calibration: model.calibration }).label).toBe('AkamaiCC-like');
  });

  it('a capture that did not measure its pipe is not held to the check (the queue cannot be read)', () => {
    const { conditions: _dropped, ...bare } = toSeries(vegas) as BifSeries;
    const a = akamaiOf(classifyFlow(bare, model))!;
    expect(a.queuedPackets).toBeNull();
    expect(a.held).toBe(true);
  });
});
