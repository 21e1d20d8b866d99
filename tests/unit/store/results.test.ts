import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRunDir, ResultsFileError, runSchema, writeRunFiles, crossCheck } from '../../../src/results/index.js';
import { copyFixture, editJson, FIXTURE_RUN, tempDir, removeTempDirs } from './helpers.js';

afterAll(removeTempDirs);

describe('readRunDir', () => {
  it('reads the fixture run with typed data and defaults applied', () => {
    const d = readRunDir(FIXTURE_RUN);
    expect(d.run.site).toBe('vod.lab.example');
    expect(d.flows.map((f) => f.id)).toEqual(['f1', 'f2', 'f3']);
    expect(d.verdicts.find((v) => v.flowId === 'f3')!.posterior).toEqual({});
    // evidence defaults: missing segments/backoffs become empty arrays
    expect(d.verdicts.find((v) => v.flowId === 'f2')!.evidence!.segments).toEqual([]);
    expect(d.model).toBe('ccbrowse-model.json sha256:ab12');
    expect(d.missing).toEqual([]);
  });

  it('names the file and the field of a schema error', () => {
    const dir = copyFixture();
    editJson(dir, 'flows.json', (o) => (o.flows[1].protocol = 'sctp'));
    expect(() => readRunDir(dir)).toThrow(ResultsFileError);
    expect(() => readRunDir(dir)).toThrow(/flows\.json: flows\.1\.protocol/);
  });

  it('rejects a verdict or an asset that points at a flow that does not exist', () => {
    const dir = copyFixture();
    editJson(dir, 'verdicts.json', (o) => (o.verdicts[0].flowId = 'f99'));
    editJson(dir, 'assets.json', (o) => (o.assets[1].flowId = 'f42'));
    let msg = '';
    try {
      readRunDir(dir);
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/verdicts\.0\.flowId: no flow "f99"/);
    expect(msg).toMatch(/assets\.1\.flowId: no flow "f42"/);
  });

  it('rejects files of another run', () => {
    const dir = copyFixture();
    editJson(dir, 'assets.json', (o) => (o.runId = 'other-run'));
    expect(() => readRunDir(dir)).toThrow(/assets\.json.*runId "other-run" differs/);
  });

  it('a complete run must have every file; an incomplete one may lack them', () => {
    const dir = copyFixture();
    rmSync(join(dir, 'verdicts.json'));
    expect(() => readRunDir(dir)).toThrow(/says complete but verdicts\.json missing/);
    editJson(dir, 'run.json', (o) => {
      o.status = 'incomplete';
      o.incompleteReason = 'browser crashed';
      o.endedAt = null;
    });
    const d = readRunDir(dir);
    expect(d.missing).toEqual(['verdicts.json']);
    expect(d.verdicts).toEqual([]);
  });

  it('says what is wrong with a directory that is not a run', () => {
    expect(() => readRunDir(tempDir())).toThrow(/no run\.json/);
    expect(() => readRunDir('/nonexistent/ccb')).toThrow(/not a directory/);
  });

  it('reports invalid JSON as such', () => {
    const dir = copyFixture();
    const p = join(dir, 'flows.json');
    writeFileSync(p, '{"schemaVersion": 1, "runId": ');
    expect(() => readRunDir(dir)).toThrow(/flows\.json: not valid JSON/);
  });
});

describe('run.json rules', () => {
  const base = () => JSON.parse(JSON.stringify(readRunDir(FIXTURE_RUN).run));
  it('an incomplete run needs a reason', () => {
    const r = { ...base(), status: 'incomplete' };
    const res = runSchema.safeParse(r);
    expect(res.success).toBe(false);
    expect(res.error!.issues[0].path).toEqual(['incompleteReason']);
  });
  it('end before start and duplicate profile names are errors', () => {
    expect(runSchema.safeParse({ ...base(), endedAt: '2025-02-03T09:00:00.000Z' }).success).toBe(false);
    const b = base();
    b.profiles.push({ ...b.profiles[0] });
    expect(runSchema.safeParse(b).success).toBe(false);
  });
  it('a different schemaVersion is refused', () => {
    expect(runSchema.safeParse({ ...base(), schemaVersion: 2 }).success).toBe(false);
  });
});

describe('writeRunFiles', () => {
  it('round-trips through readRunDir and refuses invalid data before writing', () => {
    const d = readRunDir(FIXTURE_RUN);
    const out = join(tempDir(), 'copy');
    const files = {
      run: d.run,
      flows: { schemaVersion: 1 as const, runId: d.run.runId, flows: d.flows },
      verdicts: { schemaVersion: 1 as const, runId: d.run.runId, model: d.model!, analysedAt: '2025-02-03T10:05:00.000Z', verdicts: d.verdicts },
      assets: { schemaVersion: 1 as const, runId: d.run.runId, assets: d.assets },
    };
    writeRunFiles(out, files);
    const back = readRunDir(out);
    expect(back.flows).toEqual(d.flows);
    expect(back.verdicts).toEqual(d.verdicts);
    expect(() => writeRunFiles(join(tempDir(), 'bad'), { ...files, flows: { ...files.flows, flows: [{ ...d.flows[0], bytes: { down: -1, up: 0 } }] } })).toThrow(/refusing to write flows\.json: flows\.0\.bytes\.down/);
  });

  it('crossCheck flags unknown profiles and duplicate ids', () => {
    const d = readRunDir(FIXTURE_RUN);
    const problems = crossCheck({ ...d, flows: [...d.flows, { ...d.flows[0], profile: 'geo-satellite' }] });
    expect(problems.join('\n')).toMatch(/duplicate flow id "f1"/);
    expect(problems.join('\n')).toMatch(/"geo-satellite" is not a profile/);
  });
});
