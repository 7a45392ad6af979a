import type { KubernetesBlock } from './block.js';

/**
 * The reference's pattern match (flanksource/commons `MatchItems`): true when `item` matches one of `patterns`, where
 * `*` matches anything, `a*` a prefix, `*a` a suffix, and `!a` is a veto (`item` equal to `a` never matches). An empty
 * list matches everything. Patterns are taken in order: a veto met first wins.
 */
export function matchItems(item: string, patterns: readonly string[] | undefined): boolean {
  if (!patterns || patterns.length === 0) return true;
  for (const raw of patterns) {
    const p = raw.trim();
    if (p.startsWith('!')) {
      if (item === p.slice(1)) return false;
      continue;
    }
    if (p === '*' || p === item) return true;
    if (p.length > 1 && p.startsWith('*') && item.endsWith(p.slice(1))) return true;
    if (p.length > 1 && p.endsWith('*') && item.startsWith(p.slice(0, -1))) return true;
  }
  return false;
}

/** Whether a non-empty pattern list matches (an absent list excludes nothing, unlike matchItems' "match all"). */
const hits = (item: string | undefined, patterns: readonly string[] | undefined) =>
  !!item && !!patterns && patterns.length > 0 && matchItems(item, patterns);

/**
 * Kinds left out unless the block names them with a veto in `exclusions.kind` (`!Secret`, `!Lease`): Secrets hold
 * credentials (masked even when named), and Leases are renewed every few seconds, so each renewal would be a change.
 */
export const EXCLUDED_BY_DEFAULT = ['Secret', 'Lease'] as const;

/** Whether `exclusions.kind` vetoes the exclusion of `kind` (`!Kind`). */
const named = (block: KubernetesBlock, kind: string) => (block.exclusions?.kind ?? []).some((p) => p.trim() === `!${kind}`);

/** Secrets are scraped only when the block names them (`exclusions.kind: ["!Secret"]`). */
export function secretsIncluded(block: KubernetesBlock): boolean {
  return named(block, 'Secret');
}

/** Whether a kind is left out of the scrape entirely (never listed): `exclusions.kind`, and the defaults unless named. */
export function kindExcluded(block: KubernetesBlock, kind: string): boolean {
  if ((EXCLUDED_BY_DEFAULT as readonly string[]).includes(kind) && !named(block, kind)) return true;
  return hits(kind, block.exclusions?.kind);
}

/** Whether one object is left out: by kind, name, namespace, or a label whose value matches the exclusion's pattern. */
export function objectExcluded(
  block: KubernetesBlock, kind: string, name: string, namespace: string | undefined, labels: Record<string, string> | undefined,
): boolean {
  const ex = block.exclusions;
  if (kindExcluded(block, kind)) return true;
  if (!ex) return false;
  if (hits(name, ex.name) || hits(namespace, ex.namespace)) return true;
  for (const [k, pattern] of Object.entries(ex.labels ?? {})) {
    const v = labels?.[k];
    if (v !== undefined && matchItems(v, [pattern])) return true;
  }
  return false;
}

/** Whether an Event is dropped by `event.exclusions` (its involved object's name or namespace, or its reason). */
export function eventExcluded(block: KubernetesBlock, name: string | undefined, namespace: string | undefined, reason: string | undefined): boolean {
  const ex = block.event?.exclusions;
  if (!ex) return false;
  return hits(name, ex.name) || hits(namespace, ex.namespace) || hits(reason, ex.reason);
}

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/** Case-insensitive reason match: keywords are words people type (`backoff`), reasons are CamelCase (`BackOff`). */
const keywordHit = (reason: string, patterns: readonly string[] | undefined) =>
  !!patterns?.length && matchItems(reason.toLowerCase(), patterns.map((p) => p.toLowerCase()));

/**
 * The change severity of an Event: the first of the spec's severities (critical → info) whose keywords match the
 * reason, then the reference's `error` (→ high) and `warn` (→ medium); otherwise a Warning event is low and any other
 * is info.
 */
export function eventSeverity(block: KubernetesBlock, reason: string, type: string | undefined): string {
  const kw = block.event?.severityKeywords;
  if (kw) {
    for (const s of SEVERITIES) if (keywordHit(reason, kw[s])) return s;
    if (keywordHit(reason, kw.error)) return 'high';
    if (keywordHit(reason, kw.warn)) return 'medium';
  }
  return type === 'Warning' ? 'low' : 'info';
}
