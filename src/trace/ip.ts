/**
 * IP addresses as the reader stores them (four 32-bit words, IPv4 in word 0) and as people
 * write them. Formatting happens once per flow, never per packet.
 */

export interface ParsedIp {
  version: 4 | 6;
  words: [number, number, number, number];
}

export function parseIp(text: string): ParsedIp | undefined {
  const s = text.trim().replace(/^\[|\]$/g, '');
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (v4) {
    const parts = v4.slice(1).map(Number);
    if (parts.some((n) => n > 255)) return undefined;
    return { version: 4, words: [((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0, 0, 0, 0] };
  }
  if (!s.includes(':')) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4) counts as two groups.
  const expand = (list: string[]): number[] | undefined => {
    const out: number[] = [];
    for (const g of list) {
      if (g.includes('.')) {
        const ip4 = parseIp(g);
        if (!ip4 || ip4.version !== 4) return undefined;
        out.push(ip4.words[0] >>> 16, ip4.words[0] & 0xffff);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
        out.push(parseInt(g, 16));
      }
    }
    return out;
  };
  const h = expand(head);
  const t = expand(tail);
  if (!h || !t) return undefined;
  const missing = 8 - h.length - t.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...h, ...new Array<number>(missing).fill(0), ...t];
  const words: [number, number, number, number] = [0, 0, 0, 0];
  for (let i = 0; i < 4; i++) words[i] = ((all[2 * i] << 16) | all[2 * i + 1]) >>> 0;
  return { version: 6, words };
}

export function formatIpv4(word: number): string {
  return `${word >>> 24}.${(word >>> 16) & 255}.${(word >>> 8) & 255}.${word & 255}`;
}

/** RFC 5952 text: lowercase, longest run of >= 2 zero groups compressed. */
export function formatIpv6(words: ArrayLike<number>): string {
  const g: number[] = [];
  for (let i = 0; i < 4; i++) g.push(words[i] >>> 16, words[i] & 0xffff);
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hexes = g.map((n) => n.toString(16));
  if (bestStart < 0) return hexes.join(':');
  return `${hexes.slice(0, bestStart).join(':')}::${hexes.slice(bestStart + bestLen).join(':')}`;
}

export function formatIp(version: number, words: ArrayLike<number>): string {
  return version === 4 ? formatIpv4(words[0]) : formatIpv6(words);
}

/** "1.2.3.4:80" or "[2001:db8::1]:80". */
export function formatEndpoint(version: number, words: ArrayLike<number>, port: number): string {
  return version === 4 ? `${formatIpv4(words[0])}:${port}` : `[${formatIpv6(words)}]:${port}`;
}
