/**
 * Layers that hold: every import in src/ must be allowed by the table in ARCHITECTURE.md
 * ("Layers: which folder may import which") and by its list of the lab's public files.
 * The rules live in that document; this test reads them and walks the import graph.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve('src');
const doc = readFileSync('ARCHITECTURE.md', 'utf8');
const section = doc.slice(doc.indexOf('## Layers'), doc.indexOf('\n## ', doc.indexOf('## Layers') + 5));

/** folder (or 'index.ts') -> folders it may import. */
function rules(): Map<string, Set<string>> {
  const m = new Map<string, Set<string>>();
  for (const line of section.split('\n')) {
    const cells = /^\|\s*`([^`]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (!cells) continue;
    const from = cells[1].replace(/\/$/, '');
    m.set(from, new Set([...cells[2].matchAll(/`([^`]+)\/`/g)].map((x) => x[1])));
  }
  return m;
}

function labPublicFiles(): Set<string> {
  const para = section.slice(section.indexOf("The lab's public files"));
  return new Set([...para.slice(0, para.indexOf('\n\n')).matchAll(/`(lab\/[^`]+\.ts)`/g)].map((x) => x[1]));
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const folderOf = (rel: string) => (rel.includes('/') ? rel.split('/')[0] : rel);

describe('layers (ARCHITECTURE.md)', () => {
  const table = rules();
  const labPublic = labPublicFiles();

  it('the document has the table and the lab list', () => {
    expect(table.get('util')).toEqual(new Set());
    expect(table.size).toBeGreaterThan(15);
    expect(labPublic.has('lab/state.ts')).toBe(true);
  });

  it('every import in src/ is allowed', () => {
    const violations: string[] = [];
    for (const file of sources(SRC)) {
      const from = relative(SRC, file);
      const fromFolder = folderOf(from);
      for (const imp of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
        if (!imp.fileName.startsWith('.')) continue;
        const to = relative(SRC, resolve(dirname(file), imp.fileName)).replace(/\.js$/, '.ts');
        const toFolder = folderOf(to);
        if (toFolder === fromFolder) continue;
        if (toFolder === 'cli') { violations.push(`${from} -> ${to}: nothing imports cli/`); continue; }
        if (fromFolder === 'cli') continue;
        const allowed = table.get(fromFolder);
        if (!allowed) { violations.push(`${from}: folder ${fromFolder}/ is not in the table`); continue; }
        if (!allowed.has(toFolder)) violations.push(`${from} -> ${to}: ${fromFolder}/ may not import ${toFolder}/`);
        else if (toFolder === 'lab' && !labPublic.has(to)) violations.push(`${from} -> ${to}: not one of the lab's public files`);
      }
    }
    expect(violations).toEqual([]);
  });
});
