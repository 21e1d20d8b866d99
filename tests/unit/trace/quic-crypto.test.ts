/**
 * RFC 9001 Appendix A test vectors: Initial key derivation, header protection, a whole server
 * Initial packet, and the ChaCha20-Poly1305 short-header example with its key update.
 */
import { describe, expect, it } from 'vitest';
import {
  aeadOpen, decryptPrefix, headerMask, hkdfExpandLabel, initialSecrets, INITIAL_SUITE, nextGeneration, packetKeys, QUIC_V1, QUIC_V2, SUITES,
} from '../../../src/trace/quic/crypto.js';
import { parseFrames } from '../../../src/trace/quic/frames.js';
import { decodePacketNumber, openHeader, openPayload, splitDatagram } from '../../../src/trace/quic/packet.js';
import { CryptoStream, serverHelloSuite } from '../../../src/trace/quic/tls.js';
import { protect } from './quic-builder.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const DCID = hex('8394c8f03e515708');

describe('RFC 9001 A.1: Initial keys', () => {
  const s = initialSecrets(DCID, QUIC_V1);
  it('derives the client and server Initial secrets', () => {
    expect(s.client.toString('hex')).toBe('c00cf151ca5be075ed0ebfb5c80323c42d6b7db67881289af4008f1f6c357aea');
    expect(s.server.toString('hex')).toBe('3c199828fd139efd216c155ad844cc81fb82fa8d7446fa7d78be803acdda951b');
  });
  it('derives key, iv and hp ("quic key", "quic iv", "quic hp")', () => {
    const c = packetKeys(s.client, INITIAL_SUITE, QUIC_V1);
    expect(c.key.toString('hex')).toBe('1f369613dd76d5467730efcbe3b1a22d');
    expect(c.iv.toString('hex')).toBe('fa044b2f42a3fd3b46fb255c');
    expect(c.hp.toString('hex')).toBe('9f50449e04a0e810283a1e9933adedd2');
    const sv = packetKeys(s.server, INITIAL_SUITE, QUIC_V1);
    expect(sv.key.toString('hex')).toBe('cf3a5331653c364c88f0f379b6067e37');
    expect(sv.iv.toString('hex')).toBe('0ac1493ca1905853b0bba03e');
    expect(sv.hp.toString('hex')).toBe('c206b8d9b9f0f37644430b490eeaa314');
  });
  it('derives different keys for QUIC v2 (RFC 9369 salt and labels)', () => {
    const v2 = initialSecrets(DCID, QUIC_V2);
    expect(v2.client.toString('hex')).toBe('14ec9d6eb9fd7af83bf5a668bc17a7e283766aade7ecd0891f70f9ff7f4bf47b');
    const k = packetKeys(v2.client, INITIAL_SUITE, QUIC_V2);
    expect(k.key.toString('hex')).toBe('8b1a0bc121284290a29e0971b5cd045d');
    expect(k.iv.toString('hex')).toBe('91f73e2351d8fa91660e909f');
    expect(k.hp.toString('hex')).toBe('45b95e15235d6f45a6b19cbcb0294ba9');
  });
});

describe('RFC 9001 A.2: client Initial header protection', () => {
  const k = packetKeys(initialSecrets(DCID, QUIC_V1).client, INITIAL_SUITE, QUIC_V1);
  // The unprotected header (pn 2 in 4 bytes) and the start of the CRYPTO frame carrying the ClientHello.
  const header = hex('c300000001088394c8f03e5157080000449e00000002');
  const cryptoStart = hex('060040f1010000ed0303ebf8fa56f12939b9584a3896472ec40bb863cfd3e86804fe3a47f06a2b69484c');

  it('gives the sample and mask of the RFC, and the protected header', () => {
    const payload = Buffer.alloc(1162);
    cryptoStart.copy(payload);
    const pkt = protect(k, [...header], 4, 2, [...payload]);
    expect(pkt.subarray(22, 38).toString('hex')).toBe('d1b1c98dd7689fb8ec11d242b123dc9b'); // the sample
    expect(headerMask(k, pkt.subarray(22, 38)).toString('hex')).toBe('437b9aec36');
    expect(pkt.subarray(0, 22).toString('hex')).toBe('c000000001088394c8f03e5157080000449e7b9aec34');
  });

  it('opens that packet again, whole and as a snaplen-cut prefix', () => {
    const payload = Buffer.alloc(1162);
    cryptoStart.copy(payload);
    const pkt = protect(k, [...header], 4, 2, [...payload]);
    const [p] = splitDatagram(pkt, pkt.length, 0).packets;
    expect(p).toMatchObject({ type: 'initial', start: 0, length: 1200, pnOffset: 18 });
    const h = openHeader(pkt, p, k)!;
    expect(h.pnLength).toBe(4);
    expect(decodePacketNumber(-1, h.truncatedPn, h.pnLength)).toBe(2);
    const whole = openPayload(pkt, p, h, k, 2)!;
    expect(whole.verified).toBe(true);
    expect(whole.plaintext.subarray(0, cryptoStart.length)).toEqual(cryptoStart);
    // 128-byte snaplen minus Ethernet/IP/UDP: 86 bytes of the datagram.
    const cut = pkt.subarray(0, 86);
    const prefix = openPayload(cut, p, h, k, 2)!;
    expect(prefix.verified).toBe(false);
    expect(prefix.plaintext.length).toBe(86 - 22);
    expect(Buffer.from(prefix.plaintext.subarray(0, cryptoStart.length))).toEqual(cryptoStart);
    // A flipped bit in a whole packet fails the tag.
    const bad = Buffer.from(pkt);
    bad[100] ^= 1;
    expect(openPayload(bad, p, h, k, 2)).toBeNull();
  });
});

describe('RFC 9001 A.3: server Initial', () => {
  const packet = hex(`cf000000010008f067a5502a4262b5004075c0d95a482cd0991cd25b0aac406a5816b6394100f37a1c69797554780bb38c
    c5a99f5ede4cf73c3ec2493a1839b3dbcba3f6ea46c5b7684df3548e7ddeb9c3bf9c73cc3f3bded74b562bfb19fb84022f8ef4cdd93795d77d06
    edbb7aaf2f58891850abbdca3d20398c276456cbc42158407dd074ee`);
  const payload = hex(`02000000000600405a020000560303eefce7f7b37ba1d1632e96677825ddf73988cfc79825df566dc5430b9a045a1200
    130100002e00330024001d00209d3c940d89690b84d08a60993c144eca684d1081287c834d5311bcf32bb9da1a002b00020304`);

  it('removes header protection, authenticates, and reads the ACK and the ServerHello suite', () => {
    const k = packetKeys(initialSecrets(DCID, QUIC_V1).server, INITIAL_SUITE, QUIC_V1);
    const [p] = splitDatagram(packet, packet.length, 0).packets;
    expect(p.type).toBe('initial');
    expect(Buffer.from(p.scid).toString('hex')).toBe('f067a5502a4262b5');
    const h = openHeader(packet, p, k)!;
    expect(Buffer.from(h.header).toString('hex')).toBe('c1000000010008f067a5502a4262b50040750001');
    const pn = decodePacketNumber(-1, h.truncatedPn, h.pnLength);
    expect(pn).toBe(1);
    const o = openPayload(packet, p, h, k, pn)!;
    expect(o.verified).toBe(true);
    expect(Buffer.from(o.plaintext)).toEqual(payload);
    const f = parseFrames(o.plaintext);
    expect(f.complete).toBe(true);
    expect(f.acks).toEqual([{ largest: 0, delay: 0, ranges: [{ lo: 0, hi: 0 }] }]);
    expect(f.ackEliciting).toBe(true); // CRYPTO
    const cs = new CryptoStream();
    for (const c of f.crypto) cs.add(c.offset, c.data);
    expect(serverHelloSuite(cs)).toBe(0x1301);
  });
});

describe('RFC 9001 A.5: ChaCha20-Poly1305 short header', () => {
  const secret = hex('9ac312a7f877468ebe69422748ad00a15443f18203a07d6060f688f30f21632b');
  const k = packetKeys(secret, SUITES[0x1303], QUIC_V1);

  it('derives the keys and the next generation ("quic ku")', () => {
    expect(k.key.toString('hex')).toBe('c6d98ff3441c3fe1b2182094f69caa2ed4b716b65488960a7a984979fb23e1c8');
    expect(k.iv.toString('hex')).toBe('e0459b3474bdd0e44a41c144');
    expect(k.hp.toString('hex')).toBe('25a282b9e82f06f21f488917a4fc8f1b73573685608597d0efcb076b0ab7a7a4');
    const next = nextGeneration(k);
    expect(next.secret.toString('hex')).toBe('1223504755036d556342ee9361d253421a826c9ecdf3c7148684b36b714881f9');
    expect(next.hp).toEqual(k.hp); // header protection keys do not change
    expect(hkdfExpandLabel('sha256', secret, 'quic ku', 32)).toEqual(next.secret);
  });

  it('opens the example packet (pn 654360564, one PING)', () => {
    const pkt = hex('4cfe4189655e5cd55c41f69080575d7999c25a5bfb');
    expect(headerMask(k, pkt.subarray(5, 21)).toString('hex')).toBe('aefefe7d03');
    const [p] = splitDatagram(pkt, pkt.length, 0).packets;
    const h = openHeader(pkt, p, k)!;
    expect(Buffer.from(h.header).toString('hex')).toBe('4200bff4');
    const pn = decodePacketNumber(654360563, h.truncatedPn, h.pnLength);
    expect(pn).toBe(654360564);
    const o = openPayload(pkt, p, h, k, pn)!;
    expect(o.verified).toBe(true);
    expect(Buffer.from(o.plaintext).toString('hex')).toBe('01');
    expect(aeadOpen(k, pn + 1, h.header, pkt.subarray(4))).toBeNull(); // wrong nonce
    // The unauthenticated prefix path agrees with the AEAD for ChaCha20 too.
    expect(decryptPrefix(k, pn, pkt.subarray(4, 5)).toString('hex')).toBe('01');
  });
});

describe('packet numbers (RFC 9000 A.3)', () => {
  it('decodes the RFC example and wraps around the window', () => {
    expect(decodePacketNumber(0xa82f30ea, 0x9b32, 2)).toBe(0xa82f9b32);
    expect(decodePacketNumber(-1, 5, 1)).toBe(5);
    expect(decodePacketNumber(250, 2, 1)).toBe(258);
    expect(decodePacketNumber(300, 250, 1)).toBe(250);
  });
});
