import { mkdtemp, rm, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureLabCerts, normaliseHostnames, spkiHash, subjectAltName } from '../../../src/lab/certs.js';
import { run } from '../../../src/util/exec.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('lab certificates', () => {
  it('validates and normalises hostnames', () => {
    expect(normaliseHostnames(['B.lab.ccb.test', 'a.lab.ccb.test', 'a.lab.ccb.test', '*.lab.ccb.test'])).toEqual([
      '*.lab.ccb.test',
      'a.lab.ccb.test',
      'b.lab.ccb.test',
    ]);
    for (const bad of ['', 'a b', 'a..b', '-a.test', 'a.*.test', '300.1.1.1', 'x/y']) {
      expect(() => normaliseHostnames([bad]), bad).toThrow(/not a valid hostname/);
    }
    expect(subjectAltName(['a.test', '10.0.0.1'])).toBe('DNS:a.test,IP:10.0.0.1');
  });

  it('makes a CA-signed leaf for every name, reuses it, and remakes it when names change', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ccb-certs-'));
    dirs.push(dir);
    const names = ['www.lab.ccb.test', '*.lab.ccb.test', '127.0.0.1'];
    const first = await ensureLabCerts(dir, names);
    expect(first.generated).toBe(true);
    const leaf = new X509Certificate(readFileSync(first.certPath));
    const caCert = new X509Certificate(readFileSync(first.caCertPath));
    expect(leaf.verify(caCert.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(caCert.ca).toBe(true);
    expect(leaf.subjectAltName).toBe('DNS:*.lab.ccb.test, IP Address:127.0.0.1, DNS:www.lab.ccb.test');
    expect(leaf.checkHost('www.lab.ccb.test')).toBeDefined();
    expect(leaf.checkHost('media.lab.ccb.test')).toBe('*.lab.ccb.test');
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkHost('example.com')).toBeUndefined();

    const mtime = (await stat(first.certPath)).mtimeMs;
    const again = await ensureLabCerts(dir, [...names].reverse());
    expect(again.generated).toBe(false);
    expect(again.spki).toBe(first.spki);
    expect((await stat(again.certPath)).mtimeMs).toBe(mtime);

    const changed = await ensureLabCerts(dir, [...names, 'extra.test']);
    expect(changed.generated).toBe(true);
    expect(changed.spki).not.toBe(first.spki);
    expect(new X509Certificate(readFileSync(changed.certPath)).checkHost('extra.test')).toBeDefined();
    // the CA survives a leaf change
    expect(readFileSync(changed.caCertPath).equals(readFileSync(first.caCertPath))).toBe(true);

    // Another lab asking for fewer names keeps everyone's: the leaf never shrinks.
    const other = await ensureLabCerts(dir, ['other.lab.test']);
    const union = new X509Certificate(readFileSync(other.certPath));
    for (const h of ['www.lab.ccb.test', 'extra.test', 'other.lab.test']) expect(union.checkHost(h)).toBeDefined();
    expect((await ensureLabCerts(dir, ['extra.test'])).generated).toBe(false);
  });

  it('spkiHash equals the openssl pipeline Chromium documents', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ccb-certs-'));
    dirs.push(dir);
    const c = await ensureLabCerts(dir, ['a.lab.ccb.test']);
    const pub = await run('openssl', ['x509', '-in', c.certPath, '-noout', '-pubkey']);
    const der = await run('sh', ['-c', 'openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64'], { input: pub.stdout });
    expect(spkiHash(readFileSync(c.certPath))).toBe(der.stdout.trim());
    expect(c.spki).toBe(der.stdout.trim());
  });
});
