/** Small file helpers that make the generator idempotent: unchanged files are not rewritten. */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Writes only when the content differs; returns true if it wrote. */
export async function writeIfChanged(path: string, content: string | Buffer): Promise<boolean> {
  const next = typeof content === 'string' ? Buffer.from(content) : content;
  const prev = await readFile(path).catch(() => undefined);
  if (prev && prev.equals(next)) return false;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, next);
  return true;
}

/** Copies when the target is missing or differs in size or is older. */
export async function copyIfChanged(src: string, dst: string): Promise<boolean> {
  const [s, d] = await Promise.all([stat(src), stat(dst).catch(() => undefined)]);
  if (d && d.size === s.size && d.mtimeMs >= s.mtimeMs) return false;
  await mkdir(dirname(dst), { recursive: true });
  await copyFile(src, dst);
  return true;
}

/**
 * A stamp records the parameters an expensive step (ffmpeg) was run with; the step is
 * skipped when the stamp matches, and the stamp is written last so a crash mid-step reruns it.
 */
export async function stampMatches(path: string, params: unknown): Promise<boolean> {
  if (!existsSync(path)) return false;
  return (await readFile(path, 'utf8').catch(() => '')) === JSON.stringify(params);
}

export async function writeStamp(path: string, params: unknown): Promise<void> {
  await writeFile(path, JSON.stringify(params));
}
