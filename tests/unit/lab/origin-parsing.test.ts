import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { bulkBody, MAX_BULK_BYTES, parseByteCount } from '../../../src/lab/origin/bytes.js';
import { parseListen, originUrl } from '../../../src/lab/origin/listen.js';
import { mimeType } from '../../../src/lab/origin/mime.js';
import { parseRange } from '../../../src/lab/origin/range.js';

describe('parseRange', () => {
  it('handles the single-range forms', () => {
    expect(parseRange(undefined, 1000)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=0-99', 1000)).toEqual({ kind: 'partial', start: 0, end: 99 });
    expect(parseRange('bytes=900-', 1000)).toEqual({ kind: 'partial', start: 900, end: 999 });
    expect(parseRange('bytes=-100', 1000)).toEqual({ kind: 'partial', start: 900, end: 999 });
    expect(parseRange('bytes=-5000', 1000)).toEqual({ kind: 'partial', start: 0, end: 999 });
    expect(parseRange('bytes=990-5000', 1000)).toEqual({ kind: 'partial', start: 990, end: 999 });
  });
  it('rejects ranges past the end and ignores malformed or multi-range headers', () => {
    expect(parseRange('bytes=1000-', 1000)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 1000)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=5-1', 1000)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=0-1,5-9', 1000)).toEqual({ kind: 'full' });
    expect(parseRange('items=0-1', 1000)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=-', 1000)).toEqual({ kind: 'full' });
  });
});

describe('parseByteCount and bulkBody', () => {
  it('accepts decimal counts up to the cap only', () => {
    expect(parseByteCount('0')).toEqual({ ok: true, n: 0 });
    expect(parseByteCount('1048576')).toEqual({ ok: true, n: 1048576 });
    expect(parseByteCount(String(MAX_BULK_BYTES))).toEqual({ ok: true, n: MAX_BULK_BYTES });
    for (const bad of ['', 'abc', '-1', '1e6', '0x10', '12.5', ' 5', String(MAX_BULK_BYTES + 1), '99999999999']) {
      expect(parseByteCount(bad).ok, bad).toBe(false);
    }
  });
  it('streams exactly n bytes', async () => {
    const count = async (r: Readable) => {
      let n = 0;
      for await (const c of r) n += (c as Buffer).length;
      return n;
    };
    for (const n of [0, 1, 65536, 65537, 300_000]) expect(await count(bulkBody(n))).toBe(n);
  });
});

describe('mimeType and parseListen', () => {
  it('maps lab file types', () => {
    expect(mimeType('/a/seg-0-00001.m4s')).toBe('video/iso.segment');
    expect(mimeType('init-0.mp4')).toBe('video/mp4');
    expect(mimeType('x.JS')).toBe('text/javascript; charset=utf-8');
    expect(mimeType('f.ttf')).toBe('font/ttf');
    expect(mimeType('noext')).toBe('application/octet-stream');
  });
  it('parses IP:PORT and [IPv6]:PORT', () => {
    expect(parseListen('127.0.0.2:8443')).toEqual({ host: '127.0.0.2', port: 8443 });
    expect(parseListen('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseListen('localhost:80')).toBeUndefined();
    expect(parseListen('127.0.0.1:70000')).toBeUndefined();
    expect(parseListen('127.0.0.1')).toBeUndefined();
    expect(originUrl({ host: '::1', port: 443 })).toBe('https://[::1]:443');
  });
});
