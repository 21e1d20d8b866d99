import type { z } from 'zod';

/** A validation error as one indented line per issue, for the BadInputError of a user file. */
export function issueLines(err: z.ZodError, root: string): string {
  return err.issues.map((i) => `  - ${i.path.join('.') || `(${root})`}: ${i.message}`).join('\n');
}
