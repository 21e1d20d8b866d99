import { describe, expect, it } from 'vitest';
import { labelInfos, labelStyle } from '../../../src/report/index.js';
import { KNOWN_LABELS } from '../../../src/results/index.js';

/** WCAG 2 relative luminance and contrast ratio. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

describe('label palette', () => {
  const kindOf = (l: string) => (l === 'Unknown' ? 'unknown' : l === 'Short flow' ? 'short-flow' : l === 'Application-limited' ? 'application-limited' : l === 'WebRTC media' ? 'media' : 'cca');
  it('gives every known label its own colour', () => {
    const colors = KNOWN_LABELS.map((l) => labelStyle(l, kindOf(l)).color);
    expect(new Set(colors).size).toBe(KNOWN_LABELS.length);
  });
  it('text on each colour is readable (WCAG contrast >= 4.5)', () => {
    for (const l of [...KNOWN_LABELS, 'Illinois', 'some other']) {
      const s = labelStyle(l, kindOf(l));
      expect(contrast(s.color, s.ink), l).toBeGreaterThanOrEqual(4.5);
    }
  });
  it('orders the legend: known CCAs, other CCAs A-Z, then non-answers', () => {
    const order = labelInfos([
      { name: 'Short flow', kind: 'short-flow' },
      { name: 'Westwood', kind: 'cca' },
      { name: 'BBRv1', kind: 'cca' },
      { name: 'Unknown', kind: 'unknown' },
      { name: 'CUBIC', kind: 'cca' },
      { name: 'BIC', kind: 'cca' },
    ]).map((l) => l.name);
    expect(order).toEqual(['CUBIC', 'BBRv1', 'BIC', 'Westwood', 'Unknown', 'Short flow']);
  });
  it('abbreviates unknown labels for small cells', () => {
    expect(labelStyle('A very long label', 'cca').short).toBe('A very …');
  });
});
