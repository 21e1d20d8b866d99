/**
 * QUIC packet protection (RFC 9001 section 5, RFC 9369 for v2): HKDF-Expand-Label, Initial
 * secrets from the client's first Destination Connection ID, packet keys per cipher suite,
 * header-protection masks, AEAD opening, and the key-update secret chain ("quic ku").
 * Everything runs on node:crypto.
 */
import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';

export const QUIC_V1 = 0x00000001;
export const QUIC_V2 = 0x6b3343cf;

/** TLS 1.3 cipher suites QUIC uses (RFC 9001 section 5.3). */
export interface CipherSuite {
  id: number;
  name: 'TLS_AES_128_GCM_SHA256' | 'TLS_AES_256_GCM_SHA384' | 'TLS_CHACHA20_POLY1305_SHA256';
  hash: 'sha256' | 'sha384';
  hashLen: number;
  keyLen: number;
  /** 'aes' header protection is AES-ECB on the sample; 'chacha' is the raw ChaCha20 block function. */
  hp: 'aes' | 'chacha';
}

export const SUITES: Record<number, CipherSuite> = {
  0x1301: { id: 0x1301, name: 'TLS_AES_128_GCM_SHA256', hash: 'sha256', hashLen: 32, keyLen: 16, hp: 'aes' },
  0x1302: { id: 0x1302, name: 'TLS_AES_256_GCM_SHA384', hash: 'sha384', hashLen: 48, keyLen: 32, hp: 'aes' },
  0x1303: { id: 0x1303, name: 'TLS_CHACHA20_POLY1305_SHA256', hash: 'sha256', hashLen: 32, keyLen: 32, hp: 'chacha' },
};
/** Initial packets always use this suite. */
export const INITIAL_SUITE = SUITES[0x1301];

/** Suites a traffic secret of this length can belong to (the hash length fixes it). */
export function suitesForSecret(secret: Uint8Array): CipherSuite[] {
  return Object.values(SUITES).filter((s) => s.hashLen === secret.length);
}

const INITIAL_SALT: Record<number, Buffer> = {
  [QUIC_V1]: Buffer.from('38762cf7f55934b34d179ae6a4c80cadccbb7f0a', 'hex'),
  [QUIC_V2]: Buffer.from('0dede3def700a6db819381be6e269dcbf9bd2ed9', 'hex'),
};

export function isSupportedVersion(version: number): boolean {
  return version === QUIC_V1 || version === QUIC_V2;
}

/** v2 renames the labels ("quicv2 key", ...), v1 uses "quic key" (RFC 9369 section 3.3.2). */
function labelPrefix(version: number): string {
  return version === QUIC_V2 ? 'quicv2 ' : 'quic ';
}

export function hkdfExtract(hash: string, salt: Uint8Array, ikm: Uint8Array): Buffer {
  return createHmac(hash, salt).update(ikm).digest();
}

/** HKDF-Expand (RFC 5869) with the TLS 1.3 HkdfLabel as info (RFC 8446 section 7.1), empty context. */
export function hkdfExpandLabel(hash: string, secret: Uint8Array, label: string, length: number): Buffer {
  const full = Buffer.from(`tls13 ${label}`, 'ascii');
  const info = Buffer.concat([Buffer.from([length >> 8, length & 255, full.length]), full, Buffer.from([0])]);
  const out: Buffer[] = [];
  let prev = Buffer.alloc(0);
  let got = 0;
  for (let i = 1; got < length; i++) {
    prev = createHmac(hash, secret).update(prev).update(info).update(Buffer.from([i])).digest();
    out.push(prev);
    got += prev.length;
  }
  return Buffer.concat(out).subarray(0, length);
}

/** Client and server Initial secrets from the client's first DCID (RFC 9001 section 5.2). */
export function initialSecrets(dcid: Uint8Array, version: number): { client: Buffer; server: Buffer } {
  const salt = INITIAL_SALT[version];
  if (!salt) throw new Error(`no Initial salt for version 0x${version.toString(16)}`);
  const initial = hkdfExtract('sha256', salt, dcid);
  return {
    client: hkdfExpandLabel('sha256', initial, 'client in', 32),
    server: hkdfExpandLabel('sha256', initial, 'server in', 32),
  };
}

/** The keys one traffic secret gives one direction. */
export interface PacketKeys {
  suite: CipherSuite;
  version: number;
  secret: Buffer;
  key: Buffer;
  iv: Buffer;
  hp: Buffer;
}

export function packetKeys(secret: Uint8Array, suite: CipherSuite, version: number): PacketKeys {
  const p = labelPrefix(version);
  return {
    suite,
    version,
    secret: Buffer.from(secret),
    key: hkdfExpandLabel(suite.hash, secret, `${p}key`, suite.keyLen),
    iv: hkdfExpandLabel(suite.hash, secret, `${p}iv`, 12),
    hp: hkdfExpandLabel(suite.hash, secret, `${p}hp`, suite.keyLen),
  };
}

/**
 * Keys after a key update (RFC 9001 section 6.1): the secret moves along "quic ku", key and IV
 * follow it, the header-protection key stays.
 */
export function nextGeneration(k: PacketKeys): PacketKeys {
  const secret = hkdfExpandLabel(k.suite.hash, k.secret, `${labelPrefix(k.version)}ku`, k.suite.hashLen);
  const next = packetKeys(secret, k.suite, k.version);
  return { ...next, hp: k.hp };
}

/** The 5-byte header-protection mask from a 16-byte sample (RFC 9001 sections 5.4.3, 5.4.4). */
export function headerMask(k: PacketKeys, sample: Uint8Array): Buffer {
  if (k.suite.hp === 'aes') {
    const c = createCipheriv(k.suite.keyLen === 16 ? 'aes-128-ecb' : 'aes-256-ecb', k.hp, null);
    c.setAutoPadding(false);
    return c.update(sample).subarray(0, 5);
  }
  // ChaCha20: counter = sample[0..4] (little endian), nonce = sample[4..16]; OpenSSL's 16-byte
  // IV is exactly that layout, so the sample is the IV. Encrypting zeros gives the keystream.
  const c = createCipheriv('chacha20', k.hp, sample);
  return c.update(Buffer.alloc(5));
}

/** iv XOR the packet number, right-aligned (RFC 9001 section 5.3). */
export function nonceFor(iv: Uint8Array, pn: number): Buffer {
  const n = Buffer.from(iv);
  let x = pn;
  for (let i = 11; i >= 4 && x > 0; i--) {
    n[i] ^= x % 256;
    x = Math.floor(x / 256);
  }
  return n;
}

const TAG = 16;

/** Decrypts and authenticates one packet payload (ciphertext + 16-byte tag); null if the tag fails. */
export function aeadOpen(k: PacketKeys, pn: number, header: Uint8Array, payload: Uint8Array): Buffer | null {
  if (payload.length < TAG) return null;
  const nonce = nonceFor(k.iv, pn);
  const algo = k.suite.hp === 'chacha' ? 'chacha20-poly1305' : k.suite.keyLen === 16 ? 'aes-128-gcm' : 'aes-256-gcm';
  try {
    // The union of cipher types trips the overloads; all three take a 16-byte tag.
    const d = createDecipheriv(algo as 'aes-128-gcm', k.key, nonce, { authTagLength: TAG });
    d.setAAD(header);
    d.setAuthTag(payload.subarray(payload.length - TAG));
    const out = d.update(payload.subarray(0, payload.length - TAG));
    d.final();
    return out;
  } catch {
    return null;
  }
}

/**
 * Decrypts the first bytes of a payload WITHOUT authentication, for packets the capture cut
 * short (snaplen): GCM encrypts with AES-CTR from counter block nonce || 2, ChaCha20-Poly1305
 * with ChaCha20 from block counter 1. The caller must treat the result as unverified.
 */
export function decryptPrefix(k: PacketKeys, pn: number, prefix: Uint8Array): Buffer {
  const nonce = nonceFor(k.iv, pn);
  const iv = Buffer.alloc(16);
  if (k.suite.hp === 'chacha') {
    iv.writeUInt32LE(1, 0);
    nonce.copy(iv, 4);
    return createCipheriv('chacha20', k.key, iv).update(prefix);
  }
  nonce.copy(iv, 0);
  iv.writeUInt32BE(2, 12);
  return createCipheriv(k.suite.keyLen === 16 ? 'aes-128-ctr' : 'aes-256-ctr', k.key, iv).update(prefix);
}

export const AEAD_TAG_LENGTH = TAG;
