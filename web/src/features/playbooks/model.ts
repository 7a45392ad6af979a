import { isMap, isSeq, LineCounter, parseDocument, stringify, type Node } from 'yaml';

/** A playbook as the list and its page show it (`/api/db/playbooks`). */
export interface PlaybookItem {
  id: string;
  name: string;
  title?: string | null;
  icon?: string | null;
  description?: string | null;
  category?: string | null;
  source?: string | null;
  namespace?: string | null;
  spec?: Record<string, unknown> | null;
}

export const DEFAULT_CATEGORY = 'Other';

/** Spec 001 "Playbook screens": cards by category, 'Other' for none; categories by name with Other last, titles sorted. */
export function groupByCategory<T extends PlaybookItem>(items: readonly T[]): { category: string; items: T[] }[] {
  const groups = new Map<string, T[]>();
  for (const p of items) {
    const c = p.category?.trim() || DEFAULT_CATEGORY;
    const list = groups.get(c) ?? [];
    list.push(p);
    groups.set(c, list);
  }
  const title = (p: T) => (p.title || p.name).toLowerCase();
  return [...groups]
    .sort(([a], [b]) => (a === DEFAULT_CATEGORY ? 1 : b === DEFAULT_CATEGORY ? -1 : a.localeCompare(b)))
    .map(([category, list]) => ({ category, items: [...list].sort((a, b) => title(a).localeCompare(title(b))) }));
}

/** Only console-made playbooks are edited here; a CR's (or another source's) is read-only, its source shown. */
export const isEditable = (p: PlaybookItem) => (p.source ?? 'UI') === 'UI';

/** The source a read-only playbook came from, as the card shows it. */
export function sourceText(p: PlaybookItem): string {
  if (p.source === 'KubernetesCRD') return `Kubernetes CRD${p.namespace ? ` ${p.namespace}/${p.name}` : ''}`;
  return p.source ?? '';
}

export const specToYaml = (spec: unknown): string => (spec && typeof spec === 'object' && Object.keys(spec).length ? stringify(spec) : '');

/** The editor's text as a spec: an object, or the YAML's first problem. */
export function parseSpec(text: string): { spec: Record<string, unknown> } | { error: string } {
  if (!text.trim()) return { error: 'The spec is required' };
  const doc = parseDocument(text);
  if (doc.errors.length) return { error: doc.errors[0].message.split('\n')[0] };
  const spec: unknown = doc.toJS();
  if (!spec || typeof spec !== 'object' || Array.isArray(spec)) return { error: 'The spec must be a YAML mapping' };
  return { spec: spec as Record<string, unknown> };
}

/** `spec.actions[1].gitops` → ['actions', 1, 'gitops'] (a server problem's path, under the spec). */
export function pathSegments(path: string): (string | number)[] {
  const rest = path.replace(/^spec(\.|(?=\[)|$)/, '');
  const out: (string | number)[] = [];
  for (const m of rest.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]);
  return out;
}

export interface SpecProblemAt {
  path: string;
  message: string;
  line: number;
  column: number;
}

/**
 * Places the server's problems (400 `details`: path → message) in the YAML: at the node the path names, or the
 * deepest one present (a missing field is reported at its parent); line 1 when the path is not under the spec.
 */
export function placeProblems(text: string, details: Record<string, string>): SpecProblemAt[] {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  return Object.entries(details).map(([path, message]) => {
    let node: Node | null = (doc.contents as Node | null) ?? null;
    if (path.startsWith('spec')) {
      for (const seg of pathSegments(path)) {
        const next: unknown = isMap(node) || isSeq(node) ? node.get(seg, true) : undefined;
        if (!next || typeof next !== 'object') break;
        node = next as Node;
      }
    }
    const at = node?.range ? counter.linePos(node.range[0]) : { line: 1, col: 1 };
    return { path, message, line: at.line, column: at.col };
  });
}
