/** The catalog screens' rules (spec 001 §2 "Catalog screens", §9), pure so they are tested without a browser. */

/** Spec 001 §9: the Updated row warns once the last scrape is this old. */
export const STALE_SCRAPE_MS = 60 * 60 * 1000;

/** A group's items come in pages of this many (the "first 50"). */
export const GROUP_PAGE_SIZE = 50;

/** Label names that read as one row when both are present ("region/zone: eu-west-1/eu-west-1a"). */
export const MERGED_LABEL_PAIRS: readonly (readonly [string, string])[] = [
  ['region', 'zone'],
  ['vpc', 'subnet'],
  ['os', 'arch'],
  ['version', 'part-of'],
];

export interface LabelRow {
  /** The name after the prefix, or the merged pair's names joined by '/'. */
  name: string;
  value: string;
  /** The original keys the row stands for. */
  keys: string[];
}

export interface LabelGroup {
  /** The part before the first ':' or '/', '' for keys without one. */
  prefix: string;
  rows: LabelRow[];
}

function splitKey(key: string): { prefix: string; name: string } {
  const i = key.search(/[:/]/);
  return i <= 0 ? { prefix: '', name: key } : { prefix: key.slice(0, i), name: key.slice(i + 1) };
}

/**
 * The sidebar's label rows: grouped by the prefix before the first colon or slash (unprefixed first, then prefixes
 * alphabetically), names sorted, and the pairs of MERGED_LABEL_PAIRS within one group merged into one row.
 */
export function groupLabels(labels: Record<string, unknown> | null | undefined): LabelGroup[] {
  const groups = new Map<string, Map<string, { value: string; key: string }>>();
  for (const [key, raw] of Object.entries(labels ?? {})) {
    if (raw === null || raw === undefined) continue;
    const value = typeof raw === 'string' ? raw : JSON.stringify(raw);
    const { prefix, name } = splitKey(key);
    let g = groups.get(prefix);
    if (!g) groups.set(prefix, (g = new Map()));
    g.set(name, { value, key });
  }
  const out: LabelGroup[] = [];
  for (const prefix of [...groups.keys()].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)))) {
    const names = groups.get(prefix)!;
    const rows: LabelRow[] = [];
    const used = new Set<string>();
    for (const [a, b] of MERGED_LABEL_PAIRS) {
      const x = names.get(a);
      const y = names.get(b);
      if (!x || !y) continue;
      rows.push({ name: `${a}/${b}`, value: `${x.value}/${y.value}`, keys: [x.key, y.key] });
      used.add(a).add(b);
    }
    for (const [name, { value, key }] of names) if (!used.has(name)) rows.push({ name, value, keys: [key] });
    rows.sort((p, q) => p.name.localeCompare(q.name));
    out.push({ prefix, rows });
  }
  return out;
}

/** Spec 001 §2: the Class row shows only when the type does not already end with the class (Kubernetes::Pod, Pod). */
export function showClass(type: string | null | undefined, configClass: string | null | undefined): boolean {
  if (!configClass) return false;
  return !(type ?? '').toLowerCase().endsWith(configClass.toLowerCase());
}

/** Spec 001 §2, §9: the Updated row warns when the last scrape is over an hour old and the item is not deleted. */
export function scrapeIsStale(
  lastScraped: string | null | undefined,
  deletedAt: string | null | undefined,
  now: number = Date.now(),
): boolean {
  if (deletedAt || !lastScraped) return false;
  const t = Date.parse(lastScraped);
  return Number.isFinite(t) && now - t > STALE_SCRAPE_MS;
}

/** The selected lines' text by line number (1-based), for the incident evidence; lines past the end are dropped. */
export function selectedLines(text: string, selection: Iterable<number>): Record<string, string> {
  const lines = text.split('\n');
  const out: Record<string, string> = {};
  for (const n of [...selection].sort((a, b) => a - b)) if (n >= 1 && n <= lines.length) out[String(n)] = lines[n - 1];
  return out;
}
