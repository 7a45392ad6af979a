import type pg from 'pg';
import { isSealed, openSecret } from '../../lib/secret-box.js';
import type { SecretMasker } from '../../lib/secret-mask.js';
import type { ValueFromResolver } from '../../lib/value-from.js';
import { loadRow, ROW_VERSIONS, type ClaimedRun, type RowCache } from './engine-queries.js';
import type { TemplateEnv } from './templates.js';

/**
 * What a run's templates and CEL see (issue 14 "Templates"), built once per claim: the params (secret ones opened and
 * given to the masker), the run's resource (check with its canary, config, component), the run, the playbook, the
 * webhook request, the user who asked and the spec's `env` resolved (valueFrom Secrets given to the masker).
 */

export class RunSetupError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The params with sealed secrets opened (each added to the masker). */
export function openParams(spec: Record<string, unknown>, params: Record<string, unknown>, key: () => Buffer, masker: SecretMasker): Record<string, unknown> {
  const out = { ...params };
  const secretNames = new Set(
    (Array.isArray(spec.parameters) ? spec.parameters : [])
      .filter((d): d is Record<string, unknown> => isObject(d) && d.type === 'secret' && typeof d.name === 'string')
      .map((d) => d.name as string),
  );
  for (const [name, v] of Object.entries(out)) {
    if (!isSealed(v)) continue;
    try {
      out[name] = openSecret(v, key());
    } catch (err) {
      throw new RunSetupError(`params.${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
    masker.add(String(out[name]));
  }
  for (const name of secretNames) if (typeof out[name] === 'string') masker.add(out[name] as string);
  return out;
}

/** spec.env (`[{name, value | valueFrom}]`) as a map, valueFrom resolved from the playbook's namespace. */
export async function resolveEnv(
  spec: Record<string, unknown>, namespace: string, valueFrom: ValueFromResolver | undefined, masker: SecretMasker,
): Promise<Record<string, string>> {
  const list = Array.isArray(spec.env) ? spec.env.filter(isObject) : [];
  if (!list.length) return {};
  let resolved = list;
  if (list.some((e) => isObject(e.valueFrom))) {
    if (!valueFrom) throw new RunSetupError('env: valueFrom needs a Kubernetes cluster connection');
    try {
      const out = await valueFrom.resolve({ env: list }, namespace);
      resolved = (out.spec.env as Record<string, unknown>[]);
      for (const s of out.secrets) masker.add(s);
    } catch (err) {
      throw new RunSetupError(err instanceof Error ? err.message : String(err));
    }
  }
  const env: Record<string, string> = {};
  for (const e of resolved) if (typeof e.name === 'string') env[e.name] = e.value === undefined || e.value === null ? '' : String(e.value);
  return env;
}

/** The run's template env; throws RunSetupError for what makes the run fail before any action. */
export async function buildTemplateEnv(
  db: pg.Pool, run: ClaimedRun,
  opts: { key: () => Buffer; masker: SecretMasker; valueFrom?: ValueFromResolver; rows?: RowCache },
): Promise<TemplateEnv> {
  const spec = run.spec ?? {};
  const versions = run[ROW_VERSIONS];
  const [playbook, check, config, component, user] = await Promise.all([
    opts.rows ? opts.rows.load(db, 'playbooks', run.playbook_id, versions?.playbooks) : loadRow(db, 'playbooks', run.playbook_id),
    loadRow(db, 'checks', run.check_id),
    loadRow(db, 'config_items', run.config_id),
    loadRow(db, 'components', run.component_id),
    opts.rows ? opts.rows.load(db, 'people', run.created_by, versions?.people) : loadRow(db, 'people', run.created_by),
  ]);
  if (run.check_id && !check) throw new RunSetupError(`check ${run.check_id} not found`);
  if (run.config_id && !config) throw new RunSetupError(`config ${run.config_id} not found`);
  if (run.component_id && !component) throw new RunSetupError(`component ${run.component_id} not found`);
  const canary = check ? await loadRow(db, 'canaries', (check.canary_id as string | null) ?? null) : null;
  const params = openParams(spec, run.parameters ?? {}, opts.key, opts.masker);
  const namespace = typeof playbook?.namespace === 'string' ? playbook.namespace : 'default';
  const env = await resolveEnv(spec, namespace, opts.valueFrom, opts.masker);
  const { lease_owner: _o, lease_expires_at: _e, ...runView } = run;
  return {
    params,
    ...(check ? { check } : {}),
    ...(canary ? { canary } : {}),
    ...(config ? { config } : {}),
    ...(component ? { component } : {}),
    run: { ...runView, parameters: opts.masker.maskDeep(params) },
    playbook: playbook ?? { id: run.playbook_id, spec },
    ...(run.request ? { request: run.request } : {}),
    ...(user ? { user } : {}),
    env,
  };
}
