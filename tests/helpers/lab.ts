import { expect } from 'vitest';
import type { CleanupStack } from '../../src/net/cleanup.js';
import { listNamespaces } from './system.js';

/** Unwinds a test's stack and checks that the lab it started left no namespace behind. */
export async function unwindLab(stack: CleanupStack, lab: { labId: string } | undefined): Promise<void> {
  const labId = lab?.labId;
  await stack.unwind();
  if (labId) expect(listNamespaces().filter((n) => n.includes(`ccb-lab-${labId}`))).toEqual([]);
}
