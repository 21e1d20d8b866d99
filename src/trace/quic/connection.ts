/**
 * What the unprotected long headers of one QUIC connection tell: the version, the client's
 * original Destination CID (which the Initial keys derive from), and the connection ID lengths
 * each side chose (short headers carry no length: the client addresses the server by a CID of
 * the server's length, the server the client by one of the client's).
 */
import { initialSecrets, INITIAL_SUITE, isSupportedVersion, packetKeys, type PacketKeys } from './crypto.js';

/** One UDP datagram of the connection as captured. */
export interface QuicDatagram {
  /** Seconds (any origin), ascending. */
  t: number;
  fromServer: boolean;
  /** Captured UDP payload (may be cut by the snaplen). */
  data: Uint8Array;
  /** UDP payload length on the wire. */
  wireLen: number;
}

export interface ConnectionView {
  version: number;
  odcid: Uint8Array;
  /** Length of the CIDs the server chose (client short headers carry one). */
  serverCidLength: number;
  /** Length of the CIDs the client chose (server short headers carry one; Chromium: 0). */
  clientCidLength: number;
  /** Initial keys: [client, server]. */
  initialKeys: [PacketKeys, PacketKeys];
}

/** Reads the handshake facts, or says why it cannot. */
export function describeConnection(dgrams: QuicDatagram[]): ConnectionView | string {
  let version = -1;
  let odcid: Uint8Array | undefined;
  let serverCidLength: number | undefined;
  let clientCidLength: number | undefined;
  for (const d of dgrams) {
    const b = d.data;
    if (b.length < 7 || (b[0] & 0x80) === 0) continue;
    const v = ((b[1] << 24) | (b[2] << 16) | (b[3] << 8) | b[4]) >>> 0;
    if (v === 0) continue; // Version Negotiation
    const dl = b[5];
    if (dl > 20 || b.length < 7 + dl) continue;
    const sl = b[6 + dl];
    if (sl > 20 || b.length < 7 + dl + sl) continue;
    if (!d.fromServer) {
      if (odcid === undefined) {
        // The client's first long header is its first Initial (no 0-RTT before it).
        version = v;
        odcid = Uint8Array.from(b.subarray(6, 6 + dl));
      }
      clientCidLength ??= sl;
    } else {
      serverCidLength ??= sl;
      clientCidLength ??= dl;
    }
    if (odcid !== undefined && serverCidLength !== undefined && clientCidLength !== undefined) break;
  }
  if (odcid === undefined) return 'no client Initial in the capture (the handshake was not captured)';
  if (!isSupportedVersion(version)) return `QUIC version 0x${version.toString(16).padStart(8, '0')} is not supported (v1 and v2 are)`;
  if (serverCidLength === undefined || clientCidLength === undefined) return 'no server long-header packet in the capture';
  const s = initialSecrets(odcid, version);
  return {
    version,
    odcid,
    serverCidLength,
    clientCidLength,
    initialKeys: [packetKeys(s.client, INITIAL_SUITE, version), packetKeys(s.server, INITIAL_SUITE, version)],
  };
}
