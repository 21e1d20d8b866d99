/**
 * Property tests: whatever a capture file's bytes are (cut anywhere, bytes flipped, junk
 * inserted), the trace step either returns a well-formed result or throws BadInputError.
 * Seeded PRNG: a failure reproduces exactly.
 */
import { describe, expect, it } from 'vitest';
import { BadInputError } from '../../../src/util/errors.js';
import { traceBuffer, type TraceResult } from '../../../src/trace/trace.js';
import { TcpConversation, prng, udpFrame, writePcap, writePcapng, type Frame } from './pcap-writer.js';

function sampleCapture(): Frame[] {
  const v4 = new TcpConversation({ client: '10.0.0.1', server: '10.0.0.2', clientPort: 40000, serverPort: 443, sack: true, timestamps: true });
  v4.handshake(0, 0.05, { wscale: 7 });
  for (let i = 0; i < 20; i++) v4.serverData(0.1 + i * 0.001, i * 1448, 1448);
  v4.clientAck(0.16, 2896, { sack: [[4344, 8688]] });
  v4.serverData(0.17, 2896, 1448);
  v4.clientAck(0.22, 20 * 1448);
  v4.serverFin(0.23, 20 * 1448);
  const v6 = new TcpConversation({ client: '2001:db8::1', server: '2001:db8::2', clientPort: 40001, serverPort: 443, link: 'ethernet' });
  v6.handshake(0.01, 0.05);
  v6.serverData(0.1, 0, 1000);
  v6.clientAck(0.15, 1000);
  const quic: Frame[] = [
    { time: 0.02, ...udpFrame({ src: '10.0.0.1', dst: '10.0.0.3', sport: 50000, dport: 443, payload: Uint8Array.from([0xc3, 0, 0, 0, 1, 4, 1, 2, 3, 4, 0]), payloadLen: 1200 }) },
    { time: 0.03, ...udpFrame({ src: '10.0.0.3', dst: '10.0.0.1', sport: 443, dport: 50000, payload: Uint8Array.from([0xc3, 0, 0, 0, 1, 0, 4, 5, 6, 7, 8]), payloadLen: 1200 }) },
    { time: 0.08, ...udpFrame({ src: '10.0.0.1', dst: '10.0.0.3', sport: 50000, dport: 443, payload: Uint8Array.from([0x43, 5, 6, 7, 8]), payloadLen: 40 }) },
  ];
  return [...v4.frames, ...v6.frames, ...quic].sort((a, b) => (a.time as number) - (b.time as number));
}

function checkWellFormed(r: TraceResult): void {
  for (const f of r.flows) {
    const s = f.series;
    if (!s) continue;
    expect(s.bif.length).toBe(s.t.length);
    for (let i = 0; i < s.t.length; i++) {
      if (!(s.bif[i] >= 0) || !Number.isFinite(s.bif[i])) throw new Error(`${f.id}: bad BiF ${s.bif[i]} at ${i}`);
      if (i > 0 && !(s.t[i] >= s.t[i - 1])) throw new Error(`${f.id}: time goes back at ${i}`);
    }
  }
}

function mutate(base: Uint8Array, rnd: () => number): Uint8Array {
  const choice = Math.floor(rnd() * 4);
  let out = Uint8Array.from(base);
  if (choice === 0 || choice === 3) out = out.subarray(0, Math.floor(rnd() * out.length));
  if (choice === 1 || choice === 3) {
    const flips = 1 + Math.floor(rnd() * 8);
    for (let i = 0; i < flips && out.length > 0; i++) out[Math.floor(rnd() * out.length)] ^= 1 << Math.floor(rnd() * 8);
  }
  if (choice === 2) {
    const at = Math.floor(rnd() * out.length);
    const junk = Uint8Array.from({ length: 1 + Math.floor(rnd() * 40) }, () => Math.floor(rnd() * 256));
    const joined = new Uint8Array(out.length + junk.length);
    joined.set(out.subarray(0, at));
    joined.set(junk, at);
    joined.set(out.subarray(at), at + junk.length);
    out = joined;
  }
  return out;
}

describe('reader and trace step under corrupted input', () => {
  const frames = sampleCapture();
  const bases: Array<[string, Uint8Array]> = [
    ['pcap', writePcap(frames)],
    ['pcap-ns-be', writePcap(frames, { nanos: true, bigEndian: true })],
    ['pcapng', writePcapng(frames, { extraBlocks: true })],
  ];

  it('the intact captures trace cleanly', () => {
    for (const [, buf] of bases) {
      const r = traceBuffer(buf, 'base');
      expect(r.flows.map((f) => f.id)).toEqual(['tcp-0', 'tcp-1', 'quic-0']);
      expect(r.warnings).toEqual([]);
      checkWellFormed(r);
    }
  });

  it.each(bases)('%s: 600 mutations give a result or a BadInputError, nothing else', (name, base) => {
    const rnd = prng(name.length * 7919 + 17);
    let ok = 0;
    let rejected = 0;
    for (let i = 0; i < 600; i++) {
      const buf = mutate(base, rnd);
      try {
        checkWellFormed(traceBuffer(buf, `${name}#${i}`));
        ok++;
      } catch (err) {
        if (!(err instanceof BadInputError)) {
          throw new Error(`mutation ${i} of ${name} threw ${(err as Error).name}: ${(err as Error).message}`);
        }
        expect((err as Error).message).toMatch(new RegExp(`^${name}#${i}: `));
        rejected++;
      }
    }
    // Both outcomes occur: the fuzzer exercises the error paths and the tolerant ones.
    expect(ok).toBeGreaterThan(50);
    expect(rejected).toBeGreaterThan(50);
  });
});
