import type pg from 'pg';
import type { PlannedAction, PlaybookPlanResponse, RunPlaybookRequest } from '../../contracts/playbooks-api.js';
import { actionTypeOf } from '../../contracts/playbooks.js';
import { NotFoundError } from '../../lib/errors.js';
import { isSealed } from '../../lib/secret-box.js';
import { getLivePlaybook, getPerson, getRunParameters, type PlaybookApiRow } from './api-queries.js';
import { isObj, MASKED_SECRET, paramDefs, renderDefaults, resolveParams } from './params.js';
import { assertRunsOn, loadResource, resourceEnv, type RunResource } from './resource-match.js';
import { renderTemplates, type TemplateEnv } from './templates.js';

/**
 * What a run would be, decided before it exists (issue 14 "API", "Beyond the reference"): the playbook (live), the
 * resource (exists, selected, filters hold), the params (defaults rendered, each checked by type). `/run` creates the
 * run from it; `/plan` renders each action from it without running anything, secrets `***`.
 */

type Db = pg.Pool;

export interface PreparedRun {
  playbook: PlaybookApiRow;
  resource: RunResource | undefined;
  params: Record<string, unknown>;
  user: Record<string, unknown> | null;
}

/** The env templates see before a run exists: no run id, the caller as `.user`. */
export function planEnv(p: Pick<PreparedRun, 'playbook' | 'resource' | 'user'>, params: Record<string, unknown>): TemplateEnv {
  const { spec: _spec, ...playbook } = p.playbook;
  return {
    params, run: {}, playbook: { ...playbook, spec: p.playbook.spec }, env: {}, ...resourceEnv(p.resource),
    ...(p.user && { user: p.user }),
  };
}

/** The playbook's parameters with defaults rendered against the resource (`POST /api/playbook/{id}/params`). */
export async function paramsFor(db: Db, playbookId: string, ref: Omit<RunPlaybookRequest, 'id'>, personId: string) {
  const playbook = await getLivePlaybook(db, playbookId);
  if (!playbook) throw new NotFoundError('playbook', playbookId);
  const resource = await loadResource(db, ref);
  await assertRunsOn(db, playbook, resource);
  const user = await getPerson(db, personId);
  return renderDefaults(paramDefs(playbook.spec), planEnv({ playbook, resource, user }, {}));
}

/** Validates a run request as the caller (404 playbook or resource, 400 naming what is wrong). */
export async function prepareRun(db: Db, playbookId: string, req: Omit<RunPlaybookRequest, 'id'>, personId: string): Promise<PreparedRun> {
  const playbook = await getLivePlaybook(db, playbookId);
  if (!playbook) throw new NotFoundError('playbook', playbookId);
  const resource = await loadResource(db, req);
  await assertRunsOn(db, playbook, resource);
  const user = await getPerson(db, personId);
  const defs = renderDefaults(paramDefs(playbook.spec), planEnv({ playbook, resource, user }, {}));
  const parentParams = req.parent_id ? await getRunParameters(db, req.parent_id) : null;
  if (req.parent_id && parentParams === null) throw new NotFoundError('playbook run', req.parent_id);
  const params = await resolveParams(db, { defs, given: req.params ?? {}, parentParams });
  return { playbook, resource, params, user };
}

/** Params as a plan shows them: every `secret` one (and anything sealed) `***`. */
export function maskedParams(spec: Record<string, unknown>, params: Record<string, unknown>): Record<string, unknown> {
  const secret = new Set(paramDefs(spec).filter((d) => d.type === 'secret').map((d) => d.name));
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, secret.has(k) || isSealed(v) ? MASKED_SECRET : v]));
}

/** The spec's env as a plan shows it: literal values as written, anything from a secret or config map `***`. */
function planEnvVars(spec: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of Array.isArray(spec.env) ? spec.env : []) {
    if (!isObj(e) || typeof e.name !== 'string') continue;
    out[e.name] = typeof e.value === 'string' && !e.valueFrom ? e.value : MASKED_SECRET;
  }
  return out;
}

/**
 * Each action rendered as the run would render it before its first action, without running anything. Secrets never
 * enter the rendering (they are `***` in params and env), so none can leak into it; a template that reads an earlier
 * action's result (getAction) stays as written, with the reason.
 */
export function planActions(p: PreparedRun): PlaybookPlanResponse {
  const params = maskedParams(p.playbook.spec, p.params);
  const env = { ...planEnv(p, params), env: planEnvVars(p.playbook.spec) };
  const actions: PlannedAction[] = [];
  for (const raw of Array.isArray(p.playbook.spec.actions) ? p.playbook.spec.actions : []) {
    if (!isObj(raw)) continue;
    const typed = actionTypeOf(raw);
    const name = typeof raw.name === 'string' ? raw.name : '';
    const planned: PlannedAction = { name, type: typed?.type ?? 'unknown', rendered: typed?.block ?? null };
    if (typeof raw.if === 'string') planned.if = raw.if;
    if (typeof raw.delay === 'string') planned.delay = raw.delay;
    if (typed) {
      try {
        planned.rendered = renderTemplates(typed.block, env, (action) => {
          throw new Error(`reads the result of action ${action}, known once the run gets there`);
        });
      } catch (err) {
        planned.error = (err as Error).message;
      }
    }
    actions.push(planned);
  }
  return {
    playbook: { id: p.playbook.id, name: p.playbook.name, title: p.playbook.title || null },
    params,
    actions,
  };
}
