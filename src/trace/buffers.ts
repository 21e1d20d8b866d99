/**
 * Growable typed-array columns: per-packet values are appended without creating objects,
 * and trimmed to their length once at the end.
 */

export class F64Column {
  data: Float64Array;
  length = 0;
  constructor(capacity = 256) {
    this.data = new Float64Array(capacity);
  }
  push(x: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = x;
  }
  toArray(): Float64Array {
    return this.data.slice(0, this.length);
  }
}

export class U8Column {
  data: Uint8Array;
  length = 0;
  constructor(capacity = 256) {
    this.data = new Uint8Array(capacity);
  }
  push(x: number): void {
    if (this.length === this.data.length) {
      const next = new Uint8Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = x;
  }
  toArray(): Uint8Array {
    return this.data.slice(0, this.length);
  }
}

export class U32Column {
  data: Uint32Array;
  length = 0;
  constructor(capacity = 256) {
    this.data = new Uint32Array(capacity);
  }
  push(x: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = x;
  }
  toArray(): Uint32Array {
    return this.data.slice(0, this.length);
  }
}

/**
 * FIFO of fixed-width numeric tuples (e.g. [seqEnd, sendTime, flags]) in one ring buffer:
 * what the RTT matchers keep for every packet in flight, without an object per packet.
 */
export class TupleQueue {
  private buf: Float64Array;
  private head = 0;
  size = 0;
  constructor(
    readonly width: number,
    capacity = 64,
  ) {
    this.buf = new Float64Array(capacity * width);
  }
  private get capacity(): number {
    return this.buf.length / this.width;
  }
  push(a: number, b = 0, c = 0, d = 0): void {
    if (this.size === this.capacity) this.grow();
    const at = ((this.head + this.size) % this.capacity) * this.width;
    this.buf[at] = a;
    if (this.width > 1) this.buf[at + 1] = b;
    if (this.width > 2) this.buf[at + 2] = c;
    if (this.width > 3) this.buf[at + 3] = d;
    this.size++;
  }
  /** Field `f` of the i-th entry from the front. */
  get(i: number, f: number): number {
    return this.buf[((this.head + i) % this.capacity) * this.width + f];
  }
  set(i: number, f: number, x: number): void {
    this.buf[((this.head + i) % this.capacity) * this.width + f] = x;
  }
  shift(): void {
    this.head = (this.head + 1) % this.capacity;
    this.size--;
  }
  clear(): void {
    this.head = 0;
    this.size = 0;
  }
  private grow(): void {
    const next = new Float64Array(this.buf.length * 2);
    for (let i = 0; i < this.size; i++) {
      for (let f = 0; f < this.width; f++) next[i * this.width + f] = this.get(i, f);
    }
    this.buf = next;
    this.head = 0;
  }
}

/** Median of the first n values (copies; the caller's order is kept). NaN when empty. */
export function median(values: ArrayLike<number>, n = values.length): number {
  if (n === 0) return NaN;
  const sorted = values instanceof Float64Array ? values.slice(0, n).sort() : Float64Array.from({ length: n }, (_, i) => values[i]).sort();
  const mid = n >> 1;
  return n % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
