/**
 * Finds a connection's TLS secrets in the key log. First by the ClientHello random, read from
 * the client's Initial CRYPTO frames (Initial keys come from the DCID), with the cipher suite
 * from the ServerHello. When the capture's snaplen cut the random off (Chromium's ClientHello
 * spans two Initials and may be reordered by its "chaos protection"), by trial: the key log
 * entry whose 1-RTT keys authenticate a small, wholly captured client packet is the one.
 */
import { packetKeys, SUITES, suitesForSecret, type CipherSuite } from './crypto.js';
import type { ConnectionView, QuicDatagram } from './connection.js';
import { decodePackets, type KeySet } from './decoder.js';
import type { KeyLog, TlsSecrets } from './keylog.js';
import { decodePacketNumber, openHeader, openPayload, splitDatagram, type RawPacket } from './packet.js';
import { clientHelloRandom, CryptoStream, serverHelloSuite } from './tls.js';

export interface KeyMatch {
  secrets: TlsSecrets;
  suite: CipherSuite;
  by: 'client-hello' | 'trial-decryption';
  keys: KeySet;
  clientRandom: string;
  /** The random as read from the ClientHello, when the capture held it. */
  helloRandom?: string;
}

/** How many wholly captured client 1-RTT packets a trial may test per candidate. */
const TRIAL_PACKETS = 3;

export function matchKeys(dgrams: QuicDatagram[], view: ConnectionView, keylog: KeyLog): KeyMatch | string {
  const { random, suiteId } = readHellos(dgrams, view);
  const serverSuite = suiteId !== undefined ? SUITES[suiteId] : undefined;
  if (random !== undefined) {
    const s = keylog.byRandom.get(random);
    if (s?.client0 && s.server0) {
      const suite = serverSuite && serverSuite.hashLen === s.client0.length ? serverSuite : trialSuite(dgrams, view, s) ?? suitesForSecret(s.client0)[0];
      if (suite) return { secrets: s, suite, by: 'client-hello', keys: keySet(view, s, suite), clientRandom: random, helloRandom: random };
    }
  }
  // The random was cut off or is not in the log: try every entry against real packets.
  for (const s of keylog.byRandom.values()) {
    if (!s.client0 || !s.server0) continue;
    const suite = trialSuite(dgrams, view, s, serverSuite);
    if (suite) return { secrets: s, suite, by: 'trial-decryption', keys: keySet(view, s, suite), clientRandom: s.clientRandom, helloRandom: random };
  }
  if (random !== undefined) return `ClientHello random ${random.slice(0, 16)}... is not in the key log (or lacks its traffic secrets)`;
  return `no key log entry decrypts this connection (${keylog.byRandom.size} entries tried; the ClientHello random was not captured)`;
}

function keySet(view: ConnectionView, s: TlsSecrets, suite: CipherSuite): KeySet {
  const k = (secret: Buffer) => packetKeys(secret, suite, view.version);
  return {
    initial: view.initialKeys,
    handshake: s.clientHandshake && s.serverHandshake ? [k(s.clientHandshake), k(s.serverHandshake)] : undefined,
    appData: [k(s.client0!), k(s.server0!)],
  };
}

/** The ClientHello random and ServerHello suite from the Initial packets, as far as captured. */
export function readHellos(dgrams: QuicDatagram[], view: ConnectionView): { random?: string; suiteId?: number } {
  // Only the first datagrams carry Initials: stop early on long captures.
  const head: QuicDatagram[] = [];
  for (const d of dgrams) {
    if (head.length >= 64) break;
    head.push(d);
  }
  const { packets } = decodePackets(head, view, { initial: view.initialKeys });
  const streams = [new CryptoStream(), new CryptoStream()];
  for (const p of packets) {
    if (p.type !== 'initial' || !p.frames) continue;
    for (const c of p.frames.crypto) streams[p.fromServer ? 1 : 0].add(c.offset, c.data);
  }
  return { random: clientHelloRandom(streams[0]), suiteId: serverHelloSuite(streams[1]) };
}

/**
 * The suite under which this entry's client 1-RTT keys authenticate a wholly captured client
 * packet; undefined if none does (wrong entry) or no such packet exists.
 */
function trialSuite(dgrams: QuicDatagram[], view: ConnectionView, s: TlsSecrets, only?: CipherSuite): CipherSuite | undefined {
  const candidates = only ? [only].filter((x) => x.hashLen === s.client0!.length) : suitesForSecret(s.client0!);
  const tests = trialPackets(dgrams, view);
  for (const suite of candidates) {
    const k = packetKeys(s.client0!, suite, view.version);
    for (const { d, p } of tests) {
      const h = openHeader(d.data, p, k);
      if (!h || h.reserved !== 0) continue;
      // Early client packets are numbered from 0, so decoding against "none seen" is exact.
      if (openPayload(d.data, p, h, k, decodePacketNumber(-1, h.truncatedPn, h.pnLength))) return suite;
    }
  }
  return undefined;
}

const trialCache = new WeakMap<QuicDatagram[], Array<{ d: QuicDatagram; p: RawPacket }>>();

/** The connection's first wholly captured client short-header packets. */
function trialPackets(dgrams: QuicDatagram[], view: ConnectionView): Array<{ d: QuicDatagram; p: RawPacket }> {
  const hit = trialCache.get(dgrams);
  if (hit) return hit;
  const out: Array<{ d: QuicDatagram; p: RawPacket }> = [];
  for (const d of dgrams) {
    if (out.length >= TRIAL_PACKETS) break;
    if (d.fromServer || d.data.length < d.wireLen || (d.data[0] & 0xc0) !== 0x40) continue;
    const [p] = splitDatagram(d.data, d.wireLen, view.serverCidLength).packets;
    if (p?.type === 'short') out.push({ d, p });
  }
  trialCache.set(dgrams, out);
  return out;
}
