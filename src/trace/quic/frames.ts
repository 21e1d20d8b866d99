/**
 * QUIC frames (RFC 9000 section 19), parsed only as far as bytes-in-flight needs: ACK frames
 * (ranges, ack delay, ECN counts), CRYPTO data (for the TLS hellos), and whether the packet is
 * ack-eliciting or in flight (RFC 9002 section 2: in flight = ack-eliciting or carrying PADDING;
 * ACK, PADDING and CONNECTION_CLOSE elicit no ACK). Never throws: truncated input (a capture
 * snaplen) ends the walk with `complete: false`, an unknown frame type with `unknownType`.
 */

/** Reads QUIC variable-length integers (RFC 9000 section 16) from a bounded buffer; -1 past the end. */
export class VarReader {
  constructor(
    readonly d: Uint8Array,
    public pos = 0,
    readonly end = d.length,
  ) {}
  get left(): number {
    return this.end - this.pos;
  }
  u8(): number {
    return this.pos < this.end ? this.d[this.pos++] : -1;
  }
  varint(): number {
    if (this.pos >= this.end) return -1;
    const first = this.d[this.pos];
    const len = 1 << (first >> 6);
    if (this.pos + len > this.end) return -1;
    let v = first & 0x3f;
    for (let i = 1; i < len; i++) v = v * 256 + this.d[this.pos + i];
    this.pos += len;
    return v;
  }
  skip(n: number): boolean {
    if (n < 0 || this.pos + n > this.end) return false;
    this.pos += n;
    return true;
  }
}

export interface AckRange {
  /** Smallest acknowledged packet number of the range. */
  lo: number;
  /** Largest. */
  hi: number;
}

export interface AckFrame {
  largest: number;
  /** Encoded ACK Delay; multiply by 2^ack_delay_exponent microseconds. */
  delay: number;
  /** Ranges from the largest down (as on the wire). */
  ranges: AckRange[];
  ecn?: { ect0: number; ect1: number; ce: number };
  /**
   * The capture cut the frame (snaplen): `ranges` holds those read before the cut, the largest
   * first, so they are true; older ranges below the last one are unknown.
   */
  truncated?: boolean;
}

export interface FrameSummary {
  ackEliciting: boolean;
  padding: boolean;
  /** CONNECTION_CLOSE seen. */
  close: boolean;
  acks: AckFrame[];
  crypto: Array<{ offset: number; data: Uint8Array }>;
  /** Frame types in order (the first byte of each type varint, for diagnostics). */
  types: number[];
  /** Parsed to the end of the payload. */
  complete: boolean;
  /** A type we do not know the layout of: parsing stopped there (counted as ack-eliciting). */
  unknownType?: number;
  /** A frame that contradicts its own encoding (e.g. an ACK range below zero). */
  malformed?: string;
}

/** RFC 9002: a packet counts toward bytes in flight if ack-eliciting or padded. */
export function inFlight(s: FrameSummary): boolean {
  return s.ackEliciting || s.padding;
}

function parseAck(r: VarReader, ecn: boolean): AckFrame | string | null {
  const largest = r.varint();
  const delay = r.varint();
  const count = r.varint();
  const first = r.varint();
  if (first < 0) return null;
  if (first > largest) return 'ACK first range below packet 0';
  const ranges: AckRange[] = [{ lo: largest - first, hi: largest }];
  let smallest = largest - first;
  for (let i = 0; i < count; i++) {
    const gap = r.varint();
    const len = r.varint();
    // Cut by the snaplen: the ranges read so far are the newest (ACK frames list them from the
    // largest down), which is what loss detection needs. A client ACK with many ranges (heavy
    // loss) is often longer than a 128-byte capture keeps.
    if (len < 0) return { largest, delay, ranges, truncated: true };
    const hi = smallest - gap - 2;
    const lo = hi - len;
    if (lo < 0) return 'ACK range below packet 0';
    ranges.push({ lo, hi });
    smallest = lo;
  }
  const out: AckFrame = { largest, delay, ranges };
  if (ecn) {
    const ect0 = r.varint();
    const ect1 = r.varint();
    const ce = r.varint();
    if (ce < 0) return { ...out, truncated: true };
    out.ecn = { ect0, ect1, ce };
  }
  return out;
}

/** Walks the frames of a (possibly truncated) decrypted payload. */
export function parseFrames(d: Uint8Array, start = 0, end = d.length): FrameSummary {
  const s: FrameSummary = { ackEliciting: false, padding: false, close: false, acks: [], crypto: [], types: [], complete: false };
  const r = new VarReader(d, start, end);
  while (r.left > 0) {
    const type = r.varint();
    if (type < 0) return s;
    s.types.push(type);
    let ok = true;
    switch (true) {
      case type === 0x00: {
        s.padding = true;
        while (r.pos < r.end && d[r.pos] === 0) r.pos++; // runs of PADDING: one entry
        break;
      }
      case type === 0x01 || type === 0x1e || type === 0x1f: // PING, HANDSHAKE_DONE, IMMEDIATE_ACK
        s.ackEliciting = true;
        break;
      case type === 0x02 || type === 0x03: {
        const a = parseAck(r, type === 0x03);
        if (a === null) return s;
        if (typeof a === 'string') {
          s.malformed = a;
          return s;
        }
        s.acks.push(a);
        if (a.truncated) return s; // nothing after it was captured
        break;
      }
      case type === 0x04:
        ok = r.varint() >= 0 && r.varint() >= 0 && r.varint() >= 0;
        s.ackEliciting = true;
        break;
      case type === 0x05 || type === 0x11 || type === 0x15:
        ok = r.varint() >= 0 && r.varint() >= 0;
        s.ackEliciting = true;
        break;
      case type === 0x06: {
        const offset = r.varint();
        const len = r.varint();
        s.ackEliciting = true;
        if (len < 0) return s;
        const avail = Math.min(len, r.left);
        s.crypto.push({ offset, data: d.subarray(r.pos, r.pos + avail) });
        ok = r.skip(len); // false when the capture cut the data short
        break;
      }
      case type === 0x07: {
        const len = r.varint();
        ok = len >= 0 && r.skip(len);
        s.ackEliciting = true;
        break;
      }
      case type >= 0x08 && type <= 0x0f: {
        s.ackEliciting = true;
        ok = r.varint() >= 0 && (!(type & 0x04) || r.varint() >= 0);
        if (!ok) break;
        if (type & 0x02) {
          const len = r.varint();
          ok = len >= 0 && r.skip(len);
        } else {
          r.pos = r.end; // data runs to the end of the packet
        }
        break;
      }
      case type === 0x10 || type === 0x12 || type === 0x13 || type === 0x14 || type === 0x16 || type === 0x17 || type === 0x19:
        ok = r.varint() >= 0;
        s.ackEliciting = true;
        break;
      case type === 0x18: {
        s.ackEliciting = true;
        ok = r.varint() >= 0 && r.varint() >= 0;
        const len = ok ? r.u8() : -1;
        ok = len >= 0 && r.skip(len + 16);
        break;
      }
      case type === 0x1a || type === 0x1b:
        s.ackEliciting = true;
        ok = r.skip(8);
        break;
      case type === 0x1c || type === 0x1d: {
        s.close = true;
        ok = r.varint() >= 0 && (type === 0x1d || r.varint() >= 0);
        const len = ok ? r.varint() : -1;
        ok = len >= 0 && r.skip(len);
        break;
      }
      case type === 0x30 || type === 0x31: // DATAGRAM (RFC 9221)
        s.ackEliciting = true;
        if (type === 0x31) {
          const len = r.varint();
          ok = len >= 0 && r.skip(len);
        } else r.pos = r.end;
        break;
      case type === 0xaf: // ACK_FREQUENCY (draft-ietf-quic-ack-frequency)
        s.ackEliciting = true;
        ok = r.varint() >= 0 && r.varint() >= 0 && r.varint() >= 0 && r.varint() >= 0;
        break;
      default:
        s.unknownType = type;
        s.ackEliciting = true; // only ACK, PADDING and CONNECTION_CLOSE are not
        return s;
    }
    if (!ok) return s;
  }
  s.complete = true;
  return s;
}
