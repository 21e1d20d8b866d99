import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, escapeHtml, pageHtml, safeJson } from '../../../src/report/index.js';

const NASTY = ['</script><script>alert(1)</script>', '<!--', '<![CDATA[', '\u2028\u2029', '&lt;', '"><img src=x onerror=alert(1)>', 'a\\u003cb'];

describe('safeJson', () => {
  it('contains no character that can end a script block or open a comment, and parses back to the same value', () => {
    const value = { s: NASTY, nested: { [NASTY[0]]: NASTY[5] } };
    const out = safeJson(value);
    expect(out).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(out)).toEqual(value);
  });
});

describe('pageHtml', () => {
  const data = { title: NASTY[0], list: NASTY };
  it('embeds data only inside the JSON block, escapes the title, and adds a strict CSP', () => {
    const html = pageHtml({ title: NASTY[5], data, assets: { kind: 'linked', root: '../' } });
    expect(html.match(/<script/g)).toHaveLength(2); // the JSON block and our bundle
    expect(html).toContain('<script src="../assets/report.js"></script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('</script><script>alert');
    expect(html).toContain(`<title>${escapeHtml(NASTY[5])}</title>`);
    const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)![1];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const json = /<script type="application\/json" id="ccb-data">([^]*?)<\/script>/.exec(html)![1];
    expect(JSON.parse(json)).toEqual(data);
  });

  it('single file: inline script and style allowed by their hashes only', () => {
    const html = pageHtml({ title: 't', data: {}, assets: { kind: 'inline', js: 'console.log(1)', css: 'p{}' } });
    const csp = /content="([^"]*)"/.exec(html.slice(html.indexOf('Content-Security-Policy')))![1];
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(() => pageHtml({ title: 't', data: {}, assets: { kind: 'inline', js: 'x="</script>"', css: '' } })).toThrow(/<\/script/);
  });

  it('CSP forbids network, plugins, frames, forms and <base>', () => {
    const csp = contentSecurityPolicy({ script: "'self'", style: "'self'" });
    for (const d of ["connect-src 'none'", "object-src 'none'", "frame-src 'none'", "form-action 'none'", "base-uri 'none'"]) expect(csp).toContain(d);
  });
});

describe('escapeHtml', () => {
  it('escapes the five HTML specials', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});
