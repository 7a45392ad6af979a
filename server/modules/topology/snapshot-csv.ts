/**
 * CSV as RFC 4180 writes it: a header, CRLF line ends, a field quoted when it holds a quote, comma, CR or LF, quotes
 * doubled. Ours because no CSV library is installed and writing (not parsing) needs only this. Cells: null is empty,
 * a time is RFC 3339, an object or array is its JSON, anything else its text.
 */
export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const lines = [columns.map(quote).join(',')];
  for (const row of rows) lines.push(columns.map((c) => quote(cell(row[c]))).join(','));
  return lines.join('\r\n') + '\r\n';
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function quote(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
