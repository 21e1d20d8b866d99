/**
 * The captures a batch command (`classify`, `trace`) was given: files, run directories,
 * globs (quoted, so the shell left them alone) and directories walked recursively. A folder
 * holding `capture.pcap` is one input (a probe run directory, or one profile of a scenario run,
 * which brings its key log and profile); elsewhere every `.pcap`, `.pcapng` and `.cap` file
 * found is one (gzip-compressed ones too: `.pcap.gz`). Globs use tinyglobby (the small, widely used matcher under vite and vitest).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

const CAPTURE_FILE = /\.(pcap|pcapng|cap)(\.gz)?$/i;
const GLOB_CHARS = /[*?[\]{}]/;

export interface CaptureInputs {
  /** In the order given; inside a directory or a glob, sorted by path. Each appears once. */
  inputs: string[];
  /** Arguments that named nothing (no file, no directory, a glob or folder without captures). */
  unmatched: string[];
}

function isDir(p: string): boolean {
  try { return statSync(p).isDirectory(); } catch { return false; }
}

/** A directory's captures: run directories as one input each, capture files otherwise. */
function walk(dir: string, out: string[]): void {
  if (existsSync(join(dir, 'capture.pcap')) || existsSync(join(dir, 'capture.pcap.gz'))) { out.push(dir); return; }
  let names: string[];
  try { names = readdirSync(dir).sort(); } catch { return; }
  for (const n of names) {
    if (n.startsWith('.') || n === 'node_modules') continue;
    const p = join(dir, n);
    if (isDir(p)) walk(p, out);
    else if (CAPTURE_FILE.test(n)) out.push(p);
  }
}

/** Expands the paths a user gave into the captures to analyse. */
export async function expandCaptureInputs(args: string[]): Promise<CaptureInputs> {
  const seen = new Set<string>();
  const inputs: string[] = [];
  const unmatched: string[] = [];
  const add = (found: string[], arg: string) => {
    if (found.length === 0) unmatched.push(arg);
    for (const f of found) {
      const key = resolve(f);
      if (!seen.has(key)) { seen.add(key); inputs.push(f); }
    }
  };
  for (const arg of args) {
    if (existsSync(arg)) {
      const found: string[] = [];
      if (isDir(arg)) walk(arg, found);
      else found.push(arg);
      add(found, arg);
    } else if (GLOB_CHARS.test(arg)) {
      const { glob } = await import('tinyglobby');
      const matches = (await glob(arg, { onlyFiles: false, expandDirectories: false, dot: false, absolute: isAbsolute(arg) })).sort();
      const found: string[] = [];
      // A file the pattern names is taken as the user chose it; a folder is walked.
      for (const m of matches) {
        if (isDir(m)) walk(m, found);
        else found.push(m);
      }
      add(found, arg);
    } else {
      unmatched.push(arg);
    }
  }
  return { inputs, unmatched };
}
