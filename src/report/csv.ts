/**
 * CSV for spreadsheets (RFC 4180 quoting). Measured strings are hostile here too: a cell
 * starting with = + - @ (or a tab / carriage return) is a formula to Excel and LibreOffice,
 * so it gets a leading apostrophe. Numbers are written as numbers.
 */
export type CsvValue = string | number | boolean | null | undefined;

const NEEDS_WORK = /^[=+\-@\t\r]|[",\r\n]/;
const FORMULA = /^[=+\-@\t\r]/;
const QUOTE = /[",\r\n]/;

export function csvCell(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  // One test for the common case (nothing to do), which is most cells of a large export.
  if (!NEEDS_WORK.test(v)) return v;
  const s = FORMULA.test(v) ? `'${v}` : v;
  return QUOTE.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(values: readonly CsvValue[]): string {
  return values.map(csvCell).join(',') + '\r\n';
}

export function toCsv(header: readonly string[], rows: Iterable<readonly CsvValue[]>): string {
  let out = csvLine(header);
  for (const r of rows) out += csvLine(r);
  return out;
}
