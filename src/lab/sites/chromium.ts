/**
 * Chromium flags for talking to the lab: lab hostnames resolve to lab addresses and nothing
 * else resolves (Chromium calls Google hosts even with background networking off), the lab
 * leaf is accepted by SPKI pin (works for TLS and QUIC, never touches a trust store), and
 * media may autoplay.
 */
import { isIP } from 'node:net';
import { BadInputError } from '../../util/errors.js';

export { CHROMIUM_PATH } from '../../browser/chromium.js';

/** hostname -> "IP" or "IP:PORT" (a port lets one loopback address stand in for :443). */
export type HostMap = Record<string, string>;

export function hostResolverRules(hosts: HostMap): string {
  const rules = Object.entries(hosts).map(([host, target]) => {
    if (!/^[a-z0-9*.-]+$/i.test(host)) throw new BadInputError(`bad lab hostname "${host}"`);
    const m = /^(.+?)(?::(\d{1,5}))?$/.exec(target);
    if (!m || isIP(m[1]) !== 4) throw new BadInputError(`lab host ${host} must map to IPv4[:PORT], got "${target}"`);
    return `MAP ${host} ${target}`;
  });
  return [...rules, 'MAP * ~NOTFOUND'].join(', ');
}

export interface LabChromiumOptions {
  hosts: HostMap;
  /** SPKI hashes (base64 sha256) of lab leaf certificates: see certs.ts spkiHash(). */
  spki: string[];
  /**
   * Allow WebRTC host candidates on loopback interfaces (tests on one machine; the
   * namespaced lab does not need it).
   */
  webrtcLoopback?: boolean;
  /** Fake camera and microphone, auto-granted (the lab call peer). */
  fakeMedia?: boolean;
}

export function labChromiumArgs(opts: LabChromiumOptions): string[] {
  const args = [
    `--host-resolver-rules=${hostResolverRules(opts.hosts)}`,
    `--ignore-certificate-errors-spki-list=${opts.spki.join(',')}`,
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--autoplay-policy=no-user-gesture-required',
    // Plain-address host candidates: mDNS-obfuscated ones would need multicast DNS.
    '--disable-features=WebRtcHideLocalIpsWithMdns',
  ];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  if (opts.webrtcLoopback) args.push('--allow-loopback-in-peer-connection');
  if (opts.fakeMedia) args.push('--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream');
  return args;
}
