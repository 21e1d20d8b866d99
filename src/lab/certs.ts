/**
 * The lab's TLS material: one private CA and one leaf certificate whose SAN lists every lab
 * hostname. Made with the openssl CLI at set-up, kept under build/lab/certs, and never
 * installed into any trust store: Chromium accepts the leaf through
 * --ignore-certificate-errors-spki-list (the only way that also works for HTTP/3), and Node
 * clients pass the CA explicitly.
 */
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BadInputError } from '../util/errors.js';
import { run } from '../util/exec.js';

/** Names every lab origin may be reached by (the wildcard covers hosts added later). */
export const DEFAULT_LAB_CERT_NAMES: readonly string[] = [
  'lab.ccb.test',
  '*.lab.ccb.test',
  'www.lab.ccb.test',
  'media.lab.ccb.test',
  'live.lab.ccb.test',
  'audio.lab.ccb.test',
  'img.lab.ccb.test',
  'localhost',
];

export interface LabCerts {
  dir: string;
  caCertPath: string;
  caKeyPath: string;
  certPath: string;
  keyPath: string;
  /** base64 sha256 of the leaf's SubjectPublicKeyInfo, for --ignore-certificate-errors-spki-list. */
  spki: string;
  hostnames: string[];
  /** false when the existing files were reused. */
  generated: boolean;
}

const HOST_RE = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;
const IPV4_RE = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
// A leaf closer than this to expiry is remade, so a long crawl never meets an expired cert.
const RENEW_MARGIN_MS = 7 * 24 * 3600 * 1000;

/** Sorted, de-duplicated, validated SAN list; throws BadInputError on a malformed name. */
export function normaliseHostnames(hostnames: readonly string[]): string[] {
  if (hostnames.length === 0) throw new BadInputError('no lab hostnames given for the certificate');
  const out = new Set<string>();
  for (const raw of hostnames) {
    const h = raw.trim().toLowerCase();
    const ip = IPV4_RE.exec(h);
    if (ip ? ip.slice(1).some((o) => Number(o) > 255) : !HOST_RE.test(h)) {
      throw new BadInputError(`not a valid hostname or IPv4 address for the lab certificate: "${raw}"`);
    }
    out.add(h);
  }
  return [...out].sort();
}

/** The subjectAltName value openssl expects: DNS:... for names, IP:... for addresses. */
export function subjectAltName(hostnames: readonly string[]): string {
  return hostnames.map((h) => (IPV4_RE.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
}

/** base64(sha256(SubjectPublicKeyInfo DER)) of a PEM certificate. */
export function spkiHash(leafPem: string | Buffer): string {
  const der = new X509Certificate(leafPem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64');
}

/**
 * Makes (or reuses) the lab CA and leaf in `dir`. Idempotent: the leaf is remade only when
 * a file is missing, the hostname list changed or it is about to expire; the CA is reused
 * whenever it exists.
 */
export async function ensureLabCerts(
  dir: string = 'build/lab/certs',
  hostnames: readonly string[] = DEFAULT_LAB_CERT_NAMES,
): Promise<LabCerts> {
  const requested = normaliseHostnames(hostnames);
  const p = {
    caCertPath: join(dir, 'ca.pem'),
    caKeyPath: join(dir, 'ca.key'),
    certPath: join(dir, 'leaf.pem'),
    keyPath: join(dir, 'leaf.key'),
    namesPath: join(dir, 'hostnames.json'),
  };
  await mkdir(dir, { recursive: true });

  if (!existsSync(p.caCertPath) || !existsSync(p.caKeyPath)) {
    await rm(p.namesPath, { force: true }); // a new CA invalidates the old leaf
    await run('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', p.caKeyPath, '-out', p.caCertPath, '-days', '3650', '-sha256',
      '-subj', '/CN=ccbrowse lab CA (local only)',
      '-addext', 'basicConstraints=critical,CA:TRUE',
      '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    await chmod(p.caKeyPath, 0o600);
  }

  // The leaf covers every name any lab asked for, so it never shrinks: labs sharing this
  // directory (e.g. a test lab started while the training lab runs) would otherwise remake
  // it without each other's names, and origins started later would serve the wrong leaf.
  const names = normaliseHostnames([...new Set([...(await storedNames(p.namesPath)), ...requested])]);
  let generated = false;
  if (!(await leafIsCurrent(p.certPath, p.keyPath, p.namesPath, names))) {
    await rm(p.namesPath, { force: true }); // the marker goes last: a half-made leaf is remade
    await makeLeaf(dir, p, names);
    await writeFile(p.namesPath, JSON.stringify(names, null, 2) + '\n');
    generated = true;
  }
  const spki = spkiHash(await readFile(p.certPath));
  return { dir, caCertPath: p.caCertPath, caKeyPath: p.caKeyPath, certPath: p.certPath, keyPath: p.keyPath, spki, hostnames: names, generated };
}

async function storedNames(namesPath: string): Promise<string[]> {
  try {
    const v = JSON.parse(await readFile(namesPath, 'utf8')) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

async function leafIsCurrent(certPath: string, keyPath: string, namesPath: string, names: string[]): Promise<boolean> {
  if (!existsSync(certPath) || !existsSync(keyPath) || !existsSync(namesPath)) return false;
  try {
    const stored = JSON.parse(await readFile(namesPath, 'utf8')) as unknown;
    if (JSON.stringify(stored) !== JSON.stringify(names)) return false;
    const cert = new X509Certificate(await readFile(certPath));
    return Date.parse(cert.validTo) - Date.now() > RENEW_MARGIN_MS;
  } catch {
    return false;
  }
}

async function makeLeaf(
  dir: string,
  p: { caCertPath: string; caKeyPath: string; certPath: string; keyPath: string },
  names: string[],
): Promise<void> {
  const csr = join(dir, 'leaf.csr');
  const ext = join(dir, 'leaf.ext');
  const cn = names.find((n) => !n.startsWith('*.') && !IPV4_RE.test(n)) ?? names[0];
  await run('openssl', [
    'req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', p.keyPath, '-out', csr, '-subj', `/CN=${cn}`,
  ]);
  await chmod(p.keyPath, 0o600);
  await writeFile(
    ext,
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
      `subjectAltName=${subjectAltName(names)}`,
      '',
    ].join('\n'),
  );
  // 365 days: well under Chromium's 398-day ceiling for server certificates.
  await run('openssl', [
    'x509', '-req', '-in', csr, '-CA', p.caCertPath, '-CAkey', p.caKeyPath,
    '-set_serial', `0x${randomBytes(12).toString('hex')}`, '-days', '365', '-sha256',
    '-extfile', ext, '-out', p.certPath,
  ]);
  await rm(csr, { force: true });
  await rm(ext, { force: true });
}
