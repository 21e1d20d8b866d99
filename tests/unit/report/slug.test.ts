import { describe, expect, it } from 'vitest';
import { siteSlug } from '../../../src/report/index.js';
import { isSafeHref } from '../../../report/dom.js';

describe('siteSlug', () => {
  it('keeps a readable part and is unique per site', () => {
    expect(siteSlug('YouTube.com')).toMatch(/^youtube\.com-[0-9a-f]{8}$/);
    expect(siteSlug('a b')).not.toBe(siteSlug('a-b'));
  });
  it('never carries a character that matters in a path or a URL', () => {
    for (const s of ['../../etc/passwd', '<script>alert(1)</script>', 'javascript:alert(1)', '"><img onerror=x>', '...', '', '日本.jp']) {
      const slug = siteSlug(s);
      expect(slug).toMatch(/^[a-z0-9][a-z0-9.-]*$/);
      expect(slug).not.toContain('..');
      expect(isSafeHref(`sites/${slug}.html`)).toBe(true);
    }
  });
});

describe('isSafeHref (the front end refuses any other link)', () => {
  it('accepts the report’s own relative links and fragments', () => {
    for (const h of ['index.html', '../matrix.html', 'sites/a-1.html', 'data/flows.csv', '#site/abc-12', '#matrix']) expect(isSafeHref(h), h).toBe(true);
  });
  it('refuses scripts, data, absolute and protocol-relative URLs', () => {
    for (const h of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,x', '//evil.example/x', 'https://evil.example', '/etc/passwd', ' javascript:x', 'vbscript:x', '']) expect(isSafeHref(h), h).toBe(false);
  });
});
