import { createHash } from 'node:crypto';
import { notifyChange } from '../../../../lib/events.js';
import { insertCanary, liveChecksOf, reconcileChecks, softDeleteCanary, updateCanary } from '../../../health/queries.js';
import { SpecError, validateCanarySpec } from '../../../health/spec.js';
import type { SavedComponent } from '../types.js';
import { inlineCanariesOf, inlineCanaryOf, type Link, type Q } from './queries.js';

/** What the health scheduler runs an inline canary on when neither it nor its topology names a schedule. */
export const INLINE_DEFAULT_SCHEDULE = '@every 10m';

export const inlineSource = (componentId: string) => `component/${componentId}`;

/** A component's inline checks as one canary spec: the entries' check lists joined, their other fields first wins. */
export function mergeInline(specs: Array<Record<string, unknown>>, topologySchedule: string | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of specs) {
    for (const [k, v] of Object.entries(s)) {
      if (Array.isArray(v) && Array.isArray(out[k])) out[k] = [...(out[k] as unknown[]), ...v];
      else if (!(k in out)) out[k] = v;
    }
  }
  // as the reference, the canary runs on the topology's schedule; a topology run only by hand (@never) still has its
  // checks run, on the default
  if (out.schedule === undefined && out.interval === undefined) {
    out.schedule = topologySchedule && topologySchedule.trim() !== '@never' ? topologySchedule : INLINE_DEFAULT_SCHEDULE;
  }
  return out;
}

/** JSON with keys sorted: jsonb hands objects back in its own key order. */
const canonical = (v: unknown): string => (Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
  : v !== null && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`
    : JSON.stringify(v ?? null));
const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

/**
 * Writes the canary of one component's inline checks (`source = component/<id>`, named after the component, in the
 * topology's namespace) through the health module's own canary and check writers, so the health scheduler picks it up
 * as any console canary (it polls the canaries' signature). Unchanged specs write nothing. Returns the links of its
 * live checks, or a note when the spec does not validate (the last good canary is kept).
 */
export async function writeInlineCanary(
  db: Q, c: SavedComponent, specs: Array<Record<string, unknown>>, ctx: { namespace: string; schedule: string | null; path: string },
): Promise<{ links: Link[]; note?: string }> {
  const spec = mergeInline(specs, ctx.schedule);
  const current = await inlineCanaryOf(db, c.id);
  const linksTo = async (canaryId: string, of: unknown) => (await liveChecksOf(db, canaryId))
    .map((k) => ({ owner: c.id, target: k.id, canaryId, selectorId: inlineSelectorId(of) }));
  let valid;
  try {
    valid = validateCanarySpec(spec);
  } catch (err) {
    if (!(err instanceof SpecError)) throw err;
    const note = err.problems.map((p) => `${p.path.replace(/^spec\b/, `${ctx.path}.inline`)}: ${p.message}`).join('; ');
    return { links: current ? await linksTo(current.id, current.spec) : [], note };
  }
  const row = { name: c.built.name, namespace: ctx.namespace, labels: c.built.labels ?? null, spec };
  let canaryId: string;
  if (!current) {
    canaryId = (await insertCanary(db, { ...row, source: inlineSource(c.id), createdBy: null })).id;
  } else {
    canaryId = current.id;
    if (!same(current.spec, spec) || current.name !== row.name || current.namespace !== row.namespace || !same(current.labels, row.labels)) {
      await updateCanary(db, canaryId, row);
    } else {
      return { links: await linksTo(canaryId, spec) };
    }
  }
  const checks = await reconcileChecks(db, canaryId, ctx.namespace, valid.checks);
  await notifyChange(db, { relation: 'canaries', ids: [canaryId] });
  await notifyChange(db, { relation: 'checks', ids: checks.map((k) => k.id) });
  return { links: checks.map((k) => ({ owner: c.id, target: k.id, canaryId, selectorId: inlineSelectorId(spec) })) };
}

/** The selector_id of an inline canary's links: its spec's hash (a changed spec re-links its checks). */
const inlineSelectorId = (spec: unknown) => `inline/${createHash('sha256').update(canonical(spec)).digest('hex')}`;

/** Soft-deletes (with their checks) the inline canaries of this topology's components that have none any more. */
export async function removeStaleInline(db: Q, topologyId: string, keep: Set<string>): Promise<number> {
  const stale = (await inlineCanariesOf(db, topologyId)).filter((r) => !keep.has(r.source));
  for (const r of stale) await softDeleteCanary(db, r.id);
  if (stale.length) {
    await notifyChange(db, { relation: 'canaries', ids: stale.map((r) => r.id) });
    await notifyChange(db, { relation: 'checks' });
  }
  return stale.length;
}
