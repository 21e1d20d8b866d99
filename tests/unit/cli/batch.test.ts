/**
 * Batch analysis: `classify` and `trace` over many paths (files, run directories, quoted
 * globs, directories walked) in one process on a pool of worker threads, streamed in the
 * order given, past a bad capture (reported, exit 1 at the end). Real captures of the lab
 * (tests/fixtures/lab-traces), the CLI run from its sources.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandCaptureInputs } from '../../../src/cli/inputs.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const TRACES = join(ROOT, 'tests/fixtures/lab-traces');
const RUN_DIRS = ['quinn-cubic-nebby-50', 'tcp-bbr-nebby-50', 'tcp-cubic-nebby-50', 'tcp-reno-nebby-100'];
const dir = mkdtempSync(join(tmpdir(), 'ccb-batch-'));

function ccb(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(() => {
  // A tree as a crawl leaves it: loose captures in nested folders, a bad file among them.
  mkdirSync(join(dir, 'a', 'b'), { recursive: true });
  copyFileSync(join(TRACES, 'tcp-bbr-nebby-50', 'capture.pcap'), join(dir, 'a', 'bbr.pcap'));
  copyFileSync(join(TRACES, 'tcp-cubic-nebby-50', 'capture.pcap'), join(dir, 'a', 'b', 'cubic.pcap'));
  writeFileSync(join(dir, 'a', 'b', 'broken.pcap'), 'not a capture at all');
  writeFileSync(join(dir, 'a', 'notes.txt'), 'not a capture, not named like one');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('which captures a batch is given', () => {
  it('walks directories, takes a folder holding capture.pcap as one run directory, expands quoted globs, once each', async () => {
    const r = await expandCaptureInputs([TRACES, join(dir, 'a'), `${dir}/**/*.pcap`, join(dir, 'nothing-here')]);
    expect(r.inputs).toEqual([
      ...RUN_DIRS.map((d) => join(TRACES, d)),
      join(dir, 'a', 'b', 'broken.pcap'), join(dir, 'a', 'b', 'cubic.pcap'), join(dir, 'a', 'bbr.pcap'),
    ]);
    expect(r.unmatched).toEqual([join(dir, 'nothing-here')]);
  });
});

describe('classify and trace over many captures', () => {
  it('classify --jsonl: a line per flow in the order given, the bad capture reported, exit 1', () => {
    const r = ccb(['classify', '--jsonl', '--concurrency', '2', TRACES, join(dir, 'a', 'b', 'broken.pcap'), join(dir, 'a', 'bbr.pcap')]);
    expect(r.code, r.err).toBe(1);
    const lines = r.out.trim().split('\n').map((l) => JSON.parse(l) as { input: string; verdict?: string; confidence?: number; conditions?: unknown; error?: string });
    expect(lines.map((l) => l.input)).toEqual([...RUN_DIRS.map((d) => join(TRACES, d)), join(dir, 'a', 'b', 'broken.pcap'), join(dir, 'a', 'bbr.pcap')]);
    const bad = lines.find((l) => l.error)!;
    expect(bad.input).toBe(join(dir, 'a', 'b', 'broken.pcap'));
    expect(bad.error).toMatch(/unknown file magic/);
    for (const l of lines.filter((x) => !x.error)) {
      expect(typeof l.verdict).toBe('string');
      expect(l.confidence).toBeGreaterThanOrEqual(0);
      expect(l.conditions).toBeTruthy();
    }
    expect(r.err).toMatch(/broken\.pcap: .*unknown file magic/);
  });

  it('the pool gives what one capture at a time gives', () => {
    const pooled = ccb(['classify', '--jsonl', '--concurrency', '2', TRACES]);
    const serial = ccb(['classify', '--jsonl', '--concurrency', '1', TRACES]);
    expect(pooled.code).toBe(0);
    expect(pooled.out).toBe(serial.out);
    // And each line is what classifying that run directory alone prints.
    const alone = JSON.parse(ccb(['classify', '--json', join(TRACES, 'tcp-cubic-nebby-50')]).out) as { flows: { verdict: string; confidence: number }[] };
    const line = pooled.out.trim().split('\n').map((l) => JSON.parse(l) as { input: string; verdict: string; confidence: number }).find((l) => l.input.endsWith('tcp-cubic-nebby-50'))!;
    expect([line.verdict, line.confidence]).toEqual([alone.flows[0].verdict, alone.flows[0].confidence]);
  });

  it('classify --csv: one header, a row per flow with its input', () => {
    const r = ccb(['classify', '--csv', TRACES]);
    const rows = r.out.trim().split('\n');
    expect(rows[0]).toMatch(/^input,file,flow,.*verdict,confidence/);
    expect(rows.slice(1).map((x) => x.split(',')[0])).toEqual(RUN_DIRS.map((d) => join(TRACES, d)));
  });

  it('trace: the flow table of every capture under one header with an input column; a directory without captures is bad input', () => {
    const r = ccb(['trace', join(dir, 'a', 'bbr.pcap'), join(dir, 'a', 'b', 'cubic.pcap')]);
    expect(r.code, r.err).toBe(0);
    const rows = r.out.trim().split('\n');
    expect(rows[0]).toMatch(/^input,id,kind,tuple/);
    expect(rows.slice(1).map((x) => x.split(',')[0])).toEqual([join(dir, 'a', 'bbr.pcap'), join(dir, 'a', 'b', 'cubic.pcap')]);
    const empty = mkdtempSync(join(tmpdir(), 'ccb-batch-empty-'));
    try {
      const e = ccb(['trace', empty]);
      expect(e.code).toBe(2);
      expect(e.err).toMatch(/no capture found/);
    } finally { rmSync(empty, { recursive: true, force: true }); }
  });
});
