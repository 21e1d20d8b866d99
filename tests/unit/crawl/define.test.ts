import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawlSchema, loadCrawl, resolveTargets } from '../../../src/crawl/define.js';
import { parseSiteList } from '../../../src/crawl/sites.js';

describe('site lists', () => {
  it('plain lists: URLs and bare domains, comments and repeats dropped', () => {
    expect(parseSiteList('# top sites\nexample.org\nhttps://a.test/x\n\nexample.org\n', false))
      .toEqual(['https://example.org/', 'https://a.test/x']);
  });

  it('CSV: a named column, or Tranco rank,domain', () => {
    expect(parseSiteList('rank,url,note\n1,"https://b.test/",x\n2,c.test,"a, b"\n', true)).toEqual(['https://b.test/', 'https://c.test/']);
    expect(parseSiteList('1,google.com\n2,youtube.com\n', true)).toEqual(['https://google.com/', 'https://youtube.com/']);
  });

  it('names the line of a bad entry', () => {
    expect(() => parseSiteList('a.test\nnot a domain\n', false)).toThrow(/line 2/);
  });
});

describe('defineCrawl', () => {
  it('defaults, and targets expanded from scenarios, URLs and site lists', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ccb-crawl-def-'));
    writeFileSync(join(dir, 'sites.txt'), 'a.test\nb.test\nc.test\n');
    const def = crawlSchema.parse({
      name: 'c1', lab: 'default',
      targets: [{ scenario: 'vod.ts' }, { url: 'https://x.test/big', mode: 'probe' }, { sites: 'sites.txt', limit: 2 }, { url: 'https://a.test/' }],
    });
    expect(def).toMatchObject({ regions: ['local'], repeats: 1, profiles: ['nebby-50', 'nebby-100'], concurrency: 1, retries: 2 });
    expect(resolveTargets(def, dir).map((t) => t.key)).toEqual([
      `scenario:${join(dir, 'vod.ts')}`, 'probe:https://x.test/big', 'browser:https://a.test/', 'browser:https://b.test/',
    ]);
  });

  it('refuses a bad schedule, probes without a lab, unknown fields', () => {
    const bad = (v: unknown) => crawlSchema.safeParse(v).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    expect(bad({ name: 'c', targets: [{ url: 'https://a.test/' }], schedule: '0 25 * * *' })).toMatch(/schedule: hour/);
    expect(bad({ name: 'c', targets: [{ url: 'https://a.test/', mode: 'probe' }] })).toMatch(/targets.0.mode: probe mode needs `lab`/);
    expect(bad({ name: 'c', targets: [{ url: 'https://a.test/' }], concurrancy: 2 })).toMatch(/concurrancy|Unrecognized/i);
  });

  it('loads through the user-file loader, from outside the repository, errors with file and line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ccb-crawl-file-'));
    writeFileSync(join(dir, 'ok.ts'), "import { defineCrawl } from 'ccbrowse';\nexport default defineCrawl({ name: 'ok', lab: 'default', regions: ['r1', 'r2'], repeats: 2,\n  targets: [{ url: 'https://cubic.tcp.lab.ccb.test/bytes/1000', mode: 'probe' }], schedule: '@daily' });\n");
    const c = await loadCrawl(join(dir, 'ok.ts'));
    expect(c.definition.regions).toEqual(['r1', 'r2']);
    expect(c.targets).toHaveLength(1);
    writeFileSync(join(dir, 'bad.ts'), "import { defineCrawl } from 'ccbrowse';\nexport default defineCrawl({ name: 'bad',\n  targets: [{ url: 'https://a.test/' }],\n  repeats: 0 });\n");
    await expect(loadCrawl(join(dir, 'bad.ts'))).rejects.toThrow(/bad\.ts:4: repeats/);
  }, 60_000);
});
