/**
 * For tests/integration/cleanup.test.ts: two cleanup stacks owned at once (as concurrent
 * probes are), each with a namespace; the first one's undo is slow. Prints "ready", then on
 * SIGINT each owner stops its work and unwinds its own stack: both namespaces must be gone
 * before the process exits (the CLI's rule: exit only after every owner has unwound).
 */
import { CleanupStack, liveStacks } from '../../src/net/cleanup.js';
import { addNamespace } from '../../src/net/netns.js';
import { interruptReason, interruptSignal } from '../../src/util/interrupt.js';

const tag = process.argv[2];
const signal = interruptSignal();
let made = 0;

async function owner(name: string, slowUndo: boolean): Promise<void> {
  const stack = new CleanupStack(`guard-${tag}-${name}`);
  try {
    await addNamespace(stack, `ccb-${tag}-${name}`);
    // A slow last step: the quick stack is long done (and used to exit the process) meanwhile.
    if (slowUndo) stack.push({ kind: 'file', path: `/nonexistent-${tag}` }, async () => { await new Promise((r) => setTimeout(r, 1500)); });
    if (++made === 2) process.stdout.write('ready\n');
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    await stack.unwind();
  }
}

const owners = Promise.all([owner('slow', true), owner('quick', false)]);
const keepAlive = setInterval(() => {}, 1000);
await owners;
clearInterval(keepAlive);
if (liveStacks().length) throw new Error('a stack was left live');
process.exit(interruptReason(signal).exitCode);
