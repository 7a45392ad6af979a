import { gitOpsOf } from '../../kubernetes/objects.js';

/**
 * Why a notifications / notification_silences row is read-only in the console, for the 403 of an /api/db write
 * (db-writers.ts): a row of a custom resource that Flux or Argo CD applies says `Linked to <its owner>` (the labels it
 * keeps from its CR, as the other kinds answer); another CR's names the CR; any other non-UI source names the source.
 * Null when the console owns the row (source UI or empty).
 */
export function readOnlyReason(what: string, row: { name?: unknown; namespace?: unknown; source?: unknown; labels?: unknown }): string | null {
  const source = typeof row.source === 'string' ? row.source : '';
  if (!source || source === 'UI') return null;
  const name = `${typeof row.namespace === 'string' && row.namespace ? `${row.namespace}/` : ''}${String(row.name ?? '')}`;
  const labels = row.labels && typeof row.labels === 'object' && !Array.isArray(row.labels) ? (row.labels as Record<string, string>) : undefined;
  const gitops = /^kubernetes/i.test(source) ? gitOpsOf({ labels }) : null;
  if (gitops) return `Linked to ${gitops.link}: the ${what} ${name} is managed by GitOps and read-only here; change it in its source repository`;
  if (/^kubernetes/i.test(source)) return `the ${what} ${name} comes from a Kubernetes custom resource (${source}): read-only here; change it with kubectl`;
  return `the ${what} ${name} comes from ${source}: read-only here; change it at its source`;
}
