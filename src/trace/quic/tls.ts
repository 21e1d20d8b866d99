/**
 * The two TLS facts exact BiF needs from the Initial packets' CRYPTO frames: the ClientHello
 * random (the key log's index) and the cipher suite the ServerHello chose. Both sit in the
 * first 41 bytes of their handshake message, so a partial (snaplen-cut, or out-of-order
 * "chaos protected") CRYPTO stream usually suffices.
 */

/** Sparse byte stream assembled from CRYPTO frames at their offsets. */
export class CryptoStream {
  private readonly pieces: Array<{ offset: number; data: Uint8Array }> = [];

  add(offset: number, data: Uint8Array): void {
    if (offset < 0 || data.length === 0 || offset > 1 << 20) return;
    this.pieces.push({ offset, data: Uint8Array.from(data) });
  }

  /** Bytes [from, from + len) if every one of them was seen, else undefined. */
  read(from: number, len: number): Uint8Array | undefined {
    const out = new Uint8Array(len);
    const have = new Uint8Array(len);
    for (const p of this.pieces) {
      const a = Math.max(from, p.offset);
      const b = Math.min(from + len, p.offset + p.data.length);
      for (let i = a; i < b; i++) {
        out[i - from] = p.data[i - p.offset];
        have[i - from] = 1;
      }
    }
    return have.every((x) => x === 1) ? out : undefined;
  }
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** ClientHello (type 1): 4-byte handshake header, 2-byte legacy version, then the 32-byte random. */
export function clientHelloRandom(s: CryptoStream): string | undefined {
  const head = s.read(0, 38);
  if (!head || head[0] !== 0x01) return undefined;
  return hex(head.subarray(6, 38));
}

/** ServerHello (type 2): the cipher suite follows the random and the (empty in QUIC) session id. */
export function serverHelloSuite(s: CryptoStream): number | undefined {
  const head = s.read(0, 39);
  if (!head || head[0] !== 0x02) return undefined;
  const sid = head[38];
  const cs = s.read(39 + sid, 2);
  return cs ? (cs[0] << 8) | cs[1] : undefined;
}
