/**
 * For tests/integration/cleanup.test.ts: two cleanup stacks guarded at once (as concurrent
 * probes are), each owning a namespace; the first one's undo is slow. Prints "ready" and waits
 * for a signal: both namespaces must be gone before the process exits.
 */
import { CleanupStack, unwindOnSignals } from '../../src/net/cleanup.js';
import { addNamespace } from '../../src/net/netns.js';
import { run } from '../../src/util/exec.js';

const tag = process.argv[2];
const slow = new CleanupStack(`guard-${tag}-slow`);
const quick = new CleanupStack(`guard-${tag}-quick`);
await addNamespace(slow, `ccb-${tag}-slow`);
// A slow last step: the quick stack is long done (and used to exit the process) meanwhile.
slow.push({ kind: 'file', path: `/nonexistent-${tag}` }, async () => { await new Promise((r) => setTimeout(r, 1500)); });
await addNamespace(quick, `ccb-${tag}-quick`);
unwindOnSignals(slow);
unwindOnSignals(quick);
process.stdout.write('ready\n');
setInterval(() => void run('true', []), 1000);
