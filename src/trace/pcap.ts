/**
 * Streaming pcap and pcapng reader. The file is read in large chunks into one buffer and
 * parsed with a DataView; each packet is decoded into ONE reused PacketRecord handed to a
 * visitor, so the hot loop allocates nothing per packet.
 *
 * Bad input never escapes as a RangeError: framing that does not add up (impossible record
 * lengths, bad pcapng trailers, unknown link types) throws a BadInputError naming the file and
 * byte offset; a last record cut short (capture killed mid-write) ends the read with a warning.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { BadInputError } from '../util/errors.js';
import { decodeFrame, isSupportedLinkType, linkTypeName } from './decode.js';
import { PacketRecord, type PacketVisitor } from './packet.js';

export type CaptureFormat = 'pcap' | 'pcapng';

export interface CaptureInfo {
  format: CaptureFormat;
  /** Link types of the interfaces packets came from. */
  linkTypes: number[];
  packets: number;
  bytes: number;
  /** Non-fatal problems (a truncated last record, records longer than the snaplen, ...). */
  warnings: string[];
  /** True when the last record was cut short and dropped. */
  truncated: boolean;
}

export interface ReadOptions {
  /** Bytes read per system call (default 4 MiB). */
  chunkSize?: number;
}

/** Largest record accepted: tcpdump's maximum snaplen, with room for pcapng block overhead. */
const MAX_PACKET = 262_144;
/** Largest non-packet pcapng block (name resolution, custom blocks) we are willing to buffer. */
const MAX_BLOCK = 64 * 1024 * 1024;

const PCAP_USEC = 0xa1b2c3d4;
const PCAP_NSEC = 0xa1b23c4d;
const PCAP_KUZNETZOV = 0xa1b2cd34;
const PCAPNG_SHB = 0x0a0d0d0a;
const PCAPNG_BOM = 0x1a2b3c4d;

interface NgInterface {
  linkType: number;
  snaplen: number;
  /** Timestamp units per second when decimal (10^exp), else 0 (binary: use `unitsPerSecond`). */
  decimalDivisor: number;
  unitsPerSecond: number;
  /** if_tsoffset: seconds to add to every timestamp. */
  offsetSeconds: number;
}

const hex = (n: number) => '0x' + (n >>> 0).toString(16).padStart(8, '0');

/**
 * Incremental parser: `parse` consumes whole records from a window of the file and returns
 * where it stopped; the driver refills the window. Holds the per-file state (format, byte order,
 * interfaces) between calls.
 */
export class CaptureParser {
  format: CaptureFormat | undefined;
  littleEndian = true;
  readonly warnings: string[] = [];
  readonly linkTypes = new Set<number>();
  packets = 0;
  truncated = false;
  /** Bytes the parser needs in the window to make progress (for growing the buffer). */
  need = 0;

  private nanos = false;
  private linkType = 0;
  private snaplen = 0;
  private interfaces: NgInterface[] = [];
  private oversize = 0;
  private readonly rec = new PacketRecord();

  constructor(
    private readonly name: string,
    private readonly visit: PacketVisitor,
  ) {}

  private bad(offset: number, what: string, fix?: string): BadInputError {
    return new BadInputError(
      `${this.name}: ${what} at byte ${offset}`,
      fix ?? 'the capture is corrupt or not a pcap/pcapng file; re-capture it, or check it with `capinfos`',
    );
  }

  /**
   * Parses complete records in data[pos, end); `base` is the file offset of data[0].
   * `eof` says no more bytes will come, so an incomplete record there is a truncation.
   */
  parse(data: Uint8Array, view: DataView, pos: number, end: number, base: number, eof: boolean): number {
    if (this.format === undefined) {
      pos = this.parseFileHeader(data, view, pos, end, base, eof);
      if (this.format === undefined) return pos;
    }
    const at = this.format === 'pcap' ? this.parsePcapRecords(data, view, pos, end, base) : this.parseNgBlocks(data, view, pos, end, base);
    if (eof && at < end) {
      this.truncated = true;
      this.warnings.push(
        `${this.name}: last record at byte ${base + at} is truncated (${end - at} of ${this.need} bytes); ignored it`,
      );
      return end;
    }
    return at;
  }

  /** Summary after the last `parse` call. */
  info(bytes: number): CaptureInfo {
    if (this.format === undefined) throw this.bad(0, 'no file header');
    if (this.oversize > 0) {
      this.warnings.push(`${this.name}: ${this.oversize} records are longer than the snaplen ${this.snaplen}`);
    }
    return {
      format: this.format,
      linkTypes: [...this.linkTypes],
      packets: this.packets,
      bytes,
      warnings: this.warnings,
      truncated: this.truncated,
    };
  }

  private parseFileHeader(data: Uint8Array, view: DataView, pos: number, end: number, base: number, eof: boolean): number {
    if (end - pos < 4) {
      if (!eof) return pos;
      if (end - pos === 0) {
        throw new BadInputError(`${this.name}: the file is empty`, 'the capture never started or was cut at once; re-capture it');
      }
      throw this.bad(base + pos, 'file too short for a capture header');
    }
    const magicLe = view.getUint32(pos, true);
    const magicBe = view.getUint32(pos, false);
    if (magicBe === PCAPNG_SHB) {
      this.format = 'pcapng';
      return pos; // the section header block is parsed as a block
    }
    if (magicLe === PCAP_USEC || magicLe === PCAP_NSEC) this.littleEndian = true;
    else if (magicBe === PCAP_USEC || magicBe === PCAP_NSEC) this.littleEndian = false;
    else if (magicLe === PCAP_KUZNETZOV || magicBe === PCAP_KUZNETZOV) {
      throw new BadInputError(`${this.name}: Kuznetzov (modified) pcap is not supported`, 'convert it with `editcap -F pcap IN OUT`');
    } else if (data[pos] === 0x1f && data[pos + 1] === 0x8b) {
      throw new BadInputError(`${this.name}: the file is gzip-compressed`, 'decompress it first (`gunzip`)');
    } else {
      throw this.bad(base + pos, `unknown file magic ${hex(magicBe)}`, 'give a pcap or pcapng file (tcpdump -w / dumpcap)');
    }
    if (end - pos < 24) {
      if (!eof) {
        this.need = 24;
        return pos;
      }
      throw this.bad(base + pos, 'pcap file header cut short (24 bytes needed)');
    }
    const le = this.littleEndian;
    this.nanos = view.getUint32(pos, le) === PCAP_NSEC;
    const major = view.getUint16(pos + 4, le);
    if (major !== 2) throw this.bad(base + pos + 4, `unsupported pcap version ${major}`);
    this.snaplen = view.getUint32(pos + 16, le);
    this.linkType = view.getUint32(pos + 20, le) & 0xffff;
    if (!isSupportedLinkType(this.linkType)) throw this.unsupportedLink(base + pos + 20, this.linkType);
    this.linkTypes.add(this.linkType);
    this.format = 'pcap';
    return pos + 24;
  }

  private unsupportedLink(offset: number, linkType: number): BadInputError {
    return this.bad(
      offset,
      `unsupported link type ${linkType} (${linkTypeName(linkType)})`,
      'capture on an Ethernet, loopback or Linux "any" interface (tcpdump -i IFACE), which gives link type 1, 113 or 276',
    );
  }

  private parsePcapRecords(data: Uint8Array, view: DataView, pos: number, end: number, base: number): number {
    const le = this.littleEndian;
    const fracLimit = this.nanos ? 1_000_000_000 : 1_000_000;
    const fracScale = this.nanos ? 1 : 1000;
    const rec = this.rec;
    rec.data = data;
    rec.view = view;
    rec.linkType = this.linkType;
    const snaplen = this.snaplen;
    while (end - pos >= 16) {
      const frac = view.getUint32(pos + 4, le);
      const capLen = view.getUint32(pos + 8, le);
      const origLen = view.getUint32(pos + 12, le);
      // These checks catch a misaligned or corrupted record header (random bytes almost never pass).
      if (capLen > MAX_PACKET) throw this.bad(base + pos, `record length ${capLen} exceeds ${MAX_PACKET}`);
      if (origLen < capLen) throw this.bad(base + pos, `record captured length ${capLen} > wire length ${origLen}`);
      if (frac >= fracLimit) throw this.bad(base + pos, `record sub-second field ${frac} out of range`);
      if (end - pos - 16 < capLen) {
        this.need = 16 + capLen;
        return pos;
      }
      if (capLen > snaplen && snaplen > 0) this.oversize++;
      rec.index = this.packets++;
      rec.fileOffset = base + pos;
      rec.tsSec = view.getUint32(pos, le);
      rec.tsNsec = frac * fracScale;
      rec.capLen = capLen;
      rec.origLen = origLen;
      rec.frameOffset = pos + 16;
      decodeFrame(rec);
      this.visit(rec);
      pos += 16 + capLen;
    }
    this.need = 16;
    return pos;
  }

  private parseNgBlocks(data: Uint8Array, view: DataView, pos: number, end: number, base: number): number {
    const rec = this.rec;
    rec.data = data;
    rec.view = view;
    while (end - pos >= 12) {
      const typeBe = view.getUint32(pos, false);
      if (typeBe === PCAPNG_SHB) {
        // A new section may switch byte order: read it from the byte-order magic.
        const bom = view.getUint32(pos + 8, true);
        if (bom === PCAPNG_BOM) this.littleEndian = true;
        else if (view.getUint32(pos + 8, false) === PCAPNG_BOM) this.littleEndian = false;
        else throw this.bad(base + pos + 8, 'pcapng section header has a bad byte-order magic');
      }
      const le = this.littleEndian;
      const type = view.getUint32(pos, le);
      const len = view.getUint32(pos + 4, le);
      if (len < 12 || len % 4 !== 0) throw this.bad(base + pos, `pcapng block length ${len} is invalid`);
      if (len > MAX_BLOCK) throw this.bad(base + pos, `pcapng block length ${len} is implausible`);
      if (end - pos < len) {
        this.need = len;
        return pos;
      }
      if (view.getUint32(pos + len - 4, le) !== len) {
        throw this.bad(base + pos, `pcapng block's trailing length differs from its leading length ${len}`);
      }
      switch (type) {
        case PCAPNG_SHB:
          if (len < 28) throw this.bad(base + pos, 'pcapng section header block too short');
          this.interfaces = [];
          break;
        case 1:
          this.readInterface(view, pos, len, base);
          break;
        case 6: // enhanced packet block
          this.readPacketBlock(view, pos, len, base, 8, view.getUint32(pos + 8, le));
          break;
        case 2: // obsolete packet block: 16-bit interface id
          this.readPacketBlock(view, pos, len, base, 8, view.getUint16(pos + 8, le));
          break;
        case 3: // simple packet block: no timestamp, interface 0
          this.readSimplePacket(view, pos, len, base);
          break;
        default:
          break; // statistics, name resolution, custom, decryption secrets: not needed
      }
      pos += len;
    }
    this.need = 12;
    return pos;
  }

  private readInterface(view: DataView, pos: number, len: number, base: number): void {
    const le = this.littleEndian;
    if (len < 20) throw this.bad(base + pos, 'pcapng interface block too short');
    const iface: NgInterface = {
      linkType: view.getUint16(pos + 8, le),
      snaplen: view.getUint32(pos + 12, le),
      decimalDivisor: 1e6,
      unitsPerSecond: 1e6,
      offsetSeconds: 0,
    };
    // Options: code(2) length(2) value padded to 4, until opt_endofopt or the trailer.
    let o = pos + 16;
    const optEnd = pos + len - 4;
    while (o + 4 <= optEnd) {
      const code = view.getUint16(o, le);
      const olen = view.getUint16(o + 2, le);
      if (code === 0) break;
      if (o + 4 + olen > optEnd) throw this.bad(base + o, 'pcapng interface option overruns its block');
      if (code === 9 && olen >= 1) {
        const r = view.getUint8(o + 4);
        const exp = r & 0x7f;
        if (r & 0x80) {
          iface.decimalDivisor = 0;
          iface.unitsPerSecond = 2 ** exp;
        } else {
          iface.unitsPerSecond = 10 ** exp;
          iface.decimalDivisor = exp <= 9 ? 10 ** exp : 0;
        }
      } else if (code === 14 && olen >= 8) {
        iface.offsetSeconds = Number(view.getBigInt64(o + 4, le));
      }
      o += 4 + ((olen + 3) & ~3);
    }
    this.interfaces.push(iface);
  }

  private iface(id: number, offset: number): NgInterface {
    const iface = this.interfaces[id];
    if (iface === undefined) throw this.bad(offset, `packet refers to interface ${id}, which was never described`);
    if (!isSupportedLinkType(iface.linkType)) throw this.unsupportedLink(offset, iface.linkType);
    this.linkTypes.add(iface.linkType);
    return iface;
  }

  private readPacketBlock(view: DataView, pos: number, len: number, base: number, bodyAt: number, ifaceId: number): void {
    const le = this.littleEndian;
    if (len < 32) throw this.bad(base + pos, 'pcapng packet block too short');
    const iface = this.iface(ifaceId, base + pos);
    const high = view.getUint32(pos + bodyAt + 4, le);
    const low = view.getUint32(pos + bodyAt + 8, le);
    const capLen = view.getUint32(pos + bodyAt + 12, le);
    const origLen = view.getUint32(pos + bodyAt + 16, le);
    if (capLen > len - 32) throw this.bad(base + pos, `packet captured length ${capLen} overruns its ${len}-byte block`);
    if (capLen > MAX_PACKET) throw this.bad(base + pos, `packet length ${capLen} exceeds ${MAX_PACKET}`);
    if (capLen > iface.snaplen && iface.snaplen > 0) this.oversize++;
    const rec = this.rec;
    setNgTime(rec, high, low, iface);
    this.emit(pos + 28, capLen, Math.max(origLen, capLen), iface.linkType, base + pos);
  }

  private readSimplePacket(view: DataView, pos: number, len: number, base: number): void {
    if (len < 16) throw this.bad(base + pos, 'pcapng simple packet block too short');
    const iface = this.iface(0, base + pos);
    const origLen = view.getUint32(pos + 8, this.littleEndian);
    let capLen = Math.min(origLen, len - 16);
    if (iface.snaplen > 0) capLen = Math.min(capLen, iface.snaplen);
    // No timestamp: reuse the previous packet's, so time stays monotonic.
    this.emit(pos + 12, capLen, origLen, iface.linkType, base + pos);
  }

  private emit(frameOffset: number, capLen: number, origLen: number, linkType: number, fileOffset: number): void {
    const rec = this.rec;
    rec.index = this.packets++;
    rec.fileOffset = fileOffset;
    rec.capLen = capLen;
    rec.origLen = origLen;
    rec.frameOffset = frameOffset;
    rec.linkType = linkType;
    decodeFrame(rec);
    this.visit(rec);
  }
}

/** pcapng timestamps are 64-bit counts of interface units; split into exact seconds + ns. */
function setNgTime(rec: PacketRecord, high: number, low: number, iface: NgInterface): void {
  const d = iface.decimalDivisor;
  if (d > 0) {
    // Long division in 16-bit steps keeps every intermediate below 2^53, so it is exact.
    const hq = Math.floor(high / d);
    const x = (high - hq * d) * 65536 + (low >>> 16);
    const xq = Math.floor(x / d);
    const y = (x - xq * d) * 65536 + (low & 0xffff);
    const yq = Math.floor(y / d);
    rec.tsSec = hq * 4294967296 + xq * 65536 + yq + iface.offsetSeconds;
    rec.tsNsec = (y - yq * d) * (1e9 / d);
  } else {
    const seconds = (high * 4294967296 + low) / iface.unitsPerSecond;
    const whole = Math.floor(seconds);
    rec.tsSec = whole + iface.offsetSeconds;
    rec.tsNsec = Math.min(999_999_999, Math.round((seconds - whole) * 1e9));
  }
}

/**
 * Reads a capture file chunk by chunk, calling `visit` with the reused record for every packet.
 * A gzip-compressed capture (`.pcap.gz`, as captures taken elsewhere are often shared) is
 * inflated on the fly, never whole in memory.
 */
export async function readCapture(path: string, visit: PacketVisitor, opts: ReadOptions = {}): Promise<CaptureInfo> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new BadInputError(`${path}: cannot open the capture (${e.code ?? e.message})`, 'check the path and its permissions');
  }
  try {
    const magic = Buffer.alloc(2);
    await fh.read(magic, 0, 2, 0);
    const parser = new CaptureParser(path, visit);
    const chunkSize = Math.max(256, opts.chunkSize ?? 4 * 1024 * 1024);
    if (magic[0] === 0x1f && magic[1] === 0x8b) return await parseStream(parser, inflated(path, fh), chunkSize);
    return await parseStream(parser, fileChunks(fh), chunkSize);
  } finally {
    await fh.close();
  }
}

type FillFrom = (buf: Buffer, at: number) => Promise<number>;

/** Reads straight into the parse buffer: no copy. */
function fileChunks(fh: FileHandle): FillFrom {
  let pos = 0;
  return async (buf, at) => {
    const { bytesRead } = await fh.read(buf, at, buf.length - at, pos);
    pos += bytesRead;
    return bytesRead;
  };
}

/** The file's bytes through gunzip, handed out as the parse buffer has room. */
function inflated(path: string, fh: FileHandle): FillFrom {
  const it = fh.createReadStream({ start: 0, autoClose: false }).pipe(createGunzip())[Symbol.asyncIterator]();
  let pending: Buffer | null = null;
  return async (buf, at) => {
    if (!pending || pending.length === 0) {
      let next;
      try {
        next = await it.next();
      } catch (err) {
        throw new BadInputError(`${path}: the gzip stream is corrupt (${(err as Error).message})`, 'check the file; `gzip -t` tests it');
      }
      if (next.done) return 0;
      pending = next.value as Buffer;
    }
    const n = Math.min(pending.length, buf.length - at);
    pending.copy(buf, at, 0, n);
    pending = pending.subarray(n);
    return n;
  };
}

async function parseStream(parser: CaptureParser, fill: FillFrom, chunkSize: number): Promise<CaptureInfo> {
  let buf = Buffer.allocUnsafe(chunkSize);
  let view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let filled = 0;
  let base = 0;
  for (;;) {
    if (filled === buf.length) {
      // One record does not fit: grow (the parser bounded `need` before asking).
      const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, parser.need));
      buf.copy(bigger, 0, 0, filled);
      buf = bigger;
      view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    const bytesRead = await fill(buf, filled);
    filled += bytesRead;
    const eof = bytesRead === 0;
    const pos = parser.parse(buf, view, 0, filled, base, eof);
    if (eof) return parser.info(base + filled);
    buf.copyWithin(0, pos, filled);
    filled -= pos;
    base += pos;
  }
}

/** Parses a capture held in memory (tests, small files). `name` is used in messages. */
export function readCaptureBuffer(bytes: Uint8Array, name: string, visit: PacketVisitor): CaptureInfo {
  const parser = new CaptureParser(name, visit);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  parser.parse(bytes, view, 0, bytes.length, 0, true);
  return parser.info(bytes.length);
}
