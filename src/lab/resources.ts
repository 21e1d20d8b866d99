/**
 * The lab's own kinds of resource, for whoever unwinds or reaps them: a BPF congestion
 * controller the lab registered is unregistered only when no other user, namespace default
 * or socket still uses it (lab/cca.ts keeps that bookkeeping). Imported for its effect.
 */
import { registerUndo } from '../net/resources.js';
import { unregisterIfUnused } from './cca.js';

registerUndo('bpf-struct-ops', async (r) => {
  await unregisterIfUnused(r.name).catch(() => undefined);
});
