/**
 * `meta.k8s.io/v1` Table responses (what `kubectl get` asks for): Name plus the CRD's additionalPrinterColumns, or
 * Name and Age for kinds without columns. Cells come from a JSONPath subset: `.a.b`, `.a[0]`, `.a['b.c']`,
 * `.a[?(@.k=="v")].b`; date columns are rendered as ages like the apiextensions table convertor does.
 */
import { isObject } from './patch.js';
import type { KubeObject, PrinterColumn, ResourceDef } from './types.js';

type Step = { key: string } | { index: number } | { filterKey: string; filterValue: string };

function parsePath(path: string): Step[] | undefined {
  const steps: Step[] = [];
  let s = path.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1);
  if (!s.startsWith('.')) return undefined;
  const re = /\.([A-Za-z0-9_-]+)|\['([^']+)'\]|\["([^"]+)"\]|\[(\d+)\]|\[\?\(@\.([A-Za-z0-9_.-]+)\s*==\s*["']([^"']*)["']\)\]/y;
  let i = 0;
  while (i < s.length) {
    re.lastIndex = i;
    const m = re.exec(s);
    if (!m) return undefined;
    if (m[1] ?? m[2] ?? m[3]) steps.push({ key: (m[1] ?? m[2] ?? m[3]) as string });
    else if (m[4]) steps.push({ index: Number(m[4]) });
    else steps.push({ filterKey: m[5], filterValue: m[6] });
    i = re.lastIndex;
  }
  return steps;
}

export function evalPath(obj: unknown, path: string): unknown {
  const steps = parsePath(path);
  if (!steps) return undefined;
  let cur: unknown = obj;
  for (const st of steps) {
    if (cur === undefined || cur === null) return undefined;
    if ('key' in st) cur = isObject(cur) ? cur[st.key] : undefined;
    else if ('index' in st) cur = Array.isArray(cur) ? cur[st.index] : undefined;
    else cur = Array.isArray(cur) ? cur.find((x) => isObject(x) && String(x[st.filterKey]) === st.filterValue) : undefined;
  }
  return cur;
}

/** duration.HumanDuration from apimachinery, close enough: 45s, 5m10s, 3h, 2d4h, 40d, 2y. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (h < 24 * 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

function cell(obj: KubeObject, col: PrinterColumn): unknown {
  const v = evalPath(obj, col.jsonPath);
  if (v === undefined || v === null) return null;
  if (col.type === 'date' && typeof v === 'string') {
    const t = Date.parse(v);
    return Number.isNaN(t) ? v : humanDuration(Date.now() - t);
  }
  if (col.type === 'integer' || col.type === 'number') return typeof v === 'number' ? v : Number(v);
  if (col.type === 'boolean') return typeof v === 'boolean' ? v : v === 'true';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function columnsFor(def: ResourceDef): PrinterColumn[] {
  const cols = def.printerColumns.length
    ? def.printerColumns
    : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' }];
  return cols;
}

export function toTable(
  def: ResourceDef,
  items: KubeObject[],
  resourceVersion: string,
  includeObject: string,
): Record<string, unknown> {
  const cols = columnsFor(def);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion },
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
      ...cols.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })),
    ],
    rows: items.map((obj) => ({
      cells: [obj.metadata.name, ...cols.map((c) => cell(obj, c))],
      object:
        includeObject === 'None'
          ? undefined
          : includeObject === 'Object'
            ? obj
            : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata },
    })),
  };
}
