import type pg from 'pg';
import { celToText, evalCel } from '../../../lib/cel.js';
import { propertyMap } from './properties.js';
import { exprComponent, exprComponents, writeHealthStatus, type ExprComponent } from './queries.js';
import type { ComponentProperty } from './types.js';

/** What a healthExpr may answer (components.health values the roll-up reads). */
const HEALTH = new Set(['healthy', 'unhealthy', 'warning', 'unknown', 'info']);

/** The CEL variables of a component: its fields at the top and as `self`, `summary`, `properties` by name. */
function vars(c: ExprComponent): Record<string, unknown> {
  const self = {
    id: c.id, name: c.name, type: c.type ?? '', namespace: c.namespace ?? '', labels: c.labels ?? {}, status: c.status,
    health: c.health ?? '', external_id: c.external_id, summary: c.summary ?? {},
  };
  return { ...self, self, component: self, properties: propertyMap((c.properties ?? []) as ComponentProperty[]) };
}

/**
 * healthExpr/statusExpr, evaluated after the save, the link steps and the roll-up they caused: deepest components
 * first, each read afresh (a child's new health has rolled up into its parent's summary by then). A health answer
 * is written to `health` (and rolls up); a status answer to `status` (the roll-up sets it again when the component's
 * summary next changes, and the next run re-evaluates). A failing expression is a line of the run's errors.
 */
export async function applyExpressions(db: pg.Pool, topologyId: string): Promise<string[]> {
  const errors: string[] = [];
  for (const id of await exprComponents(db, topologyId)) {
    const c = await exprComponent(db, id);
    if (!c) continue;
    let health: string | null = null;
    let status: string | null = null;
    if (c.health_expr) {
      try {
        const out = celToText(evalCel(c.health_expr, vars(c))).trim().toLowerCase();
        if (HEALTH.has(out)) health = out;
        else errors.push(`${c.name}: healthExpr gave "${out.slice(0, 40)}", not one of ${[...HEALTH].join(', ')}`);
      } catch (err) {
        errors.push(`${c.name}: healthExpr: ${(err as Error).message}`);
      }
    }
    if (c.status_expr) {
      try {
        status = celToText(evalCel(c.status_expr, vars(c))).trim() || null;
      } catch (err) {
        errors.push(`${c.name}: statusExpr: ${(err as Error).message}`);
      }
    }
    // health first: its roll-up may rewrite status, which the statusExpr then has the last word on
    if (health) await writeHealthStatus(db, c.id, health, null);
    if (status) await writeHealthStatus(db, c.id, null, status);
  }
  return errors;
}
