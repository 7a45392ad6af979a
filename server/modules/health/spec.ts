import { z } from 'zod';
import { celSyntaxError } from '../../lib/cel.js';
import { goTemplateError } from '../../lib/go-template.js';
import { checkTypeOf } from '../../lib/checks/index.js';
import { DependsOnList, dependsOnOf, dependsOnProblems, type DependsOnEntry } from './depends-on.js';
import { transformProblems } from './transform.js';
import { parseGoDuration, parseSchedule, ScheduleError, type Schedule } from './schedule.js';

/** The Canary spec (canaries.flanksource.com/v1) as far as this console runs it; see reference/crds.md. */

const Severity = z.string().transform((s) => s.toLowerCase()).pipe(z.enum(['info', 'low', 'medium', 'high', 'critical']));
const Labels = z.record(z.string().min(1).max(253), z.string().max(1024));

const Expr = z.object({
  expr: z.string().optional(),
  template: z.string().optional(),
  javascript: z.string().optional(),
  jsonPath: z.string().optional(),
}).loose();

/**
 * A check's `transform` (transform.ts): one of `expr` (CEL), `template` (Go template) or `javascript` (run in a
 * QuickJS sandbox), whose JSON output changes the check's result or makes checks of its own.
 */
export const TransformSpec = z.object({
  expr: z.string().max(16_384).optional(),
  template: z.string().max(16_384).optional(),
  javascript: z.string().max(65_536).optional(),
  jsonPath: z.string().optional(),
}).loose();
export type TransformSpec = z.infer<typeof TransformSpec>;

/** What happens to a transformed check that a later run no longer returns: marked so, then removed. */
export const TransformDeleteStrategy = z.enum(['MarkHealthy', 'MarkUnhealthy', 'Ignore']);
export type TransformDeleteStrategy = z.infer<typeof TransformDeleteStrategy>;

/** Names of the console's own metrics (server/plugins/metrics.ts and prom-client's defaults): not for checks. */
export const RESERVED_METRIC_PREFIXES = ['http_', 'db_pool_', 'process_', 'nodejs_'] as const;

const MetricLabel = z.object({
  name: z.string()
    .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)')
    .max(100)
    .refine((n) => !n.startsWith('__'), 'label names starting with __ are reserved by Prometheus'),
  value: z.string().max(1_024).optional(),
  valueExpr: z.string().max(4_096).optional(),
}).superRefine((l, ctx) => {
  if ((l.value === undefined) === (l.valueExpr === undefined)) {
    ctx.addIssue({ code: 'custom', message: 'a label needs exactly one of value (literal) or valueExpr (CEL)' });
  }
});

/**
 * One custom Prometheus metric of a check (the reference's `metrics[]`): exported after every run, see
 * check-metrics.ts. `type` is required, as in the reference (its docs mark it required and it refuses an empty one).
 */
export const CheckMetricSpec = z.object({
  name: z.string()
    .regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, 'must be a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)')
    .max(200)
    .refine((n) => !RESERVED_METRIC_PREFIXES.some((p) => n.startsWith(p)),
      `names starting with ${RESERVED_METRIC_PREFIXES.join(', ')} belong to the console's own metrics`),
  type: z.enum(['gauge', 'counter', 'histogram'], {
    error: (i) => (i.input === undefined ? 'type is required (gauge, counter or histogram)' : 'must be gauge, counter or histogram'),
  }),
  value: z.string().max(4_096),
  labels: z.array(MetricLabel).max(20).optional(),
}).superRefine((m, ctx) => {
  const seen = new Set<string>();
  m.labels?.forEach((l, i) => {
    if (seen.has(l.name)) ctx.addIssue({ code: 'custom', path: ['labels', i, 'name'], message: `duplicate label "${l.name}"` });
    seen.add(l.name);
    // prom-client refuses `le` on a histogram: its buckets use it
    if (l.name === 'le' && m.type === 'histogram') ctx.addIssue({ code: 'custom', path: ['labels', i, 'name'], message: 'le is reserved on a histogram' });
  });
});
export type CheckMetricSpec = z.infer<typeof CheckMetricSpec>;

/**
 * A name may be declared more than once in a check (the reference's own example exports exchange_rate{to="GBP"} and
 * exchange_rate{to="EUR"} from one check), but always as one family: the same type and the same label names.
 */
export const CheckMetrics = z.array(CheckMetricSpec).max(50).superRefine((list, ctx) => {
  const first = new Map<string, string>();
  list.forEach((m, i) => {
    const shape = `${m.type} {${(m.labels ?? []).map((l) => l.name).sort().join(',')}}`;
    const seen = first.get(m.name);
    if (seen === undefined) first.set(m.name, shape);
    else if (seen !== shape) {
      ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `metric "${m.name}" is declared before as ${seen}: a name keeps one type and one set of label names` });
    }
  });
});

/** Fields every check has, whatever its type (the reference's `Description` + `Templatable`). */
export const CommonCheck = z.object({
  /** Optional as in the reference: a check without one is named after its description, else its endpoint (checkName). */
  name: z.string().trim().min(1, 'name must not be empty').max(255).optional(),
  description: z.string().max(4_096).optional(),
  namespace: z.string().max(253).optional(),
  icon: z.string().max(1_024).optional(),
  labels: Labels.optional(),
  severity: Severity.optional(),
  owner: z.string().max(1_024).optional(),
  test: Expr.optional(),
  display: Expr.optional(),
  thresholdMillis: z.number().int().min(0).optional(),
  /** Per-check timeout: seconds, or a duration such as `10s`. */
  timeout: z.union([z.number().positive(), z.string()]).optional(),
  /** Custom Prometheus metrics evaluated after each run (check-metrics.ts). */
  metrics: CheckMetrics.optional(),
  transform: TransformSpec.optional(),
  transformDeleteStrategy: TransformDeleteStrategy.optional(),
}).loose();
export type CommonCheck = z.infer<typeof CommonCheck> & { name: string };

/** Fields that say what a check talks to, in the order a nameless check takes its name from (after description). */
const ENDPOINT_FIELDS = ['endpoint', 'url', 'addr', 'host', 'path', 'query', 'server'] as const;

/**
 * A check's name: its own, else its description, else what it targets, as the reference names a result
 * (CheckResult.GetName: name, description, endpoint). Reference manifests often leave `name` out.
 */
function checkName(common: z.infer<typeof CommonCheck>, entry: Record<string, unknown>): string | undefined {
  if (common.name) return common.name;
  const fallback = [common.description, ...ENDPOINT_FIELDS.map((k) => entry[k])]
    .find((v): v is string => typeof v === 'string' && v.trim() !== '');
  return fallback?.trim().slice(0, 255);
}

export const CanaryFields = z.object({
  schedule: z.string().optional(),
  interval: z.number().int().min(0).optional(),
  replicas: z.number().int().min(0).optional(),
  icon: z.string().optional(),
  severity: Severity.optional(),
  owner: z.string().optional(),
  resultMode: z.string().optional(),
  agentSelector: z.array(z.string()).optional(),
  env: z.record(z.string(), z.unknown()).optional(),
  retries: z.unknown().optional(),
}).loose();
export type CanaryFields = z.infer<typeof CanaryFields>;
const CANARY_FIELDS = new Set(Object.keys(CanaryFields.shape));

/** Check keys of the reference's CanarySpec that this console does not run (yet): refused by name. */
const REFERENCE_CHECK_KEYS = new Set([
  'icmp', 'postgres', 'mysql', 'mssql', 'redis', 'mongodb', 'elasticsearch', 'opensearch', 'prometheus',
  'alertmanager', 'kubernetes', 'kubernetesResource', 'pod', 'namespace', 'junit', 'helm', 's3', 'folder', 'ldap',
  'restic', 'jmeter', 'docker', 'dockerPush', 'containerd', 'containerdPush', 'gitProtocol', 'github', 'catalog',
  'webhook', 'cloudwatch', 'awsConfig', 'awsConfigRule', 'databaseBackup', 'dynatrace', 'azureDevops', 'pubsub',
]);

/**
 * A refusal of one field: a fixed `message` (limited by `when` to the values that matter), or a `problem` function
 * that returns the message for a value, if any.
 */
type Rule =
  | { message: string; when?: (value: unknown, entry: Record<string, unknown>) => boolean }
  | { problem: (value: unknown, entry: Record<string, unknown>) => string | undefined };
type Unsupported = Record<string, Rule>;

/**
 * A Go template field (http `body` with `templateBody: true`, a templated sql `query`, a folder's `filter.since`):
 * rendered before the run (check-templates.ts, http.ts); refused at save only when it does not parse.
 */
function templateProblem(v: unknown): string | undefined {
  if (typeof v !== 'string' || !v.includes('{{')) return undefined;
  return goTemplateError(v) ?? undefined;
}

/** A TLS setting that matters: a CA, a client certificate, or verification turned off. */
function tlsMatters(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  const t = v as Record<string, unknown>;
  return t.ca !== undefined || t.cert !== undefined || t.key !== undefined || t.insecureSkipVerify === true;
}
const FETCH_TLS_MESSAGE = 'is not supported for this check type: the server would be verified against the system CAs, with no client certificate';
const FETCH_TLS: Unsupported = {
  tls: { message: `tls ${FETCH_TLS_MESSAGE}`, when: tlsMatters },
  tlsConfig: { message: `tlsConfig ${FETCH_TLS_MESSAGE}`, when: tlsMatters },
};
/** The reference renders a query as a Go template (`{{ if last_result... }}`) before it is sent. */
const SQL_TEMPLATE: Unsupported = {
  query: { problem: (v) => templateProblem(v) },
};

/**
 * Fields of the reference's checks that this console does not implement and whose absence would change a result:
 * refused at save, by path, rather than silently ignored. (Fields that only add output, such as exec `artifacts`,
 * are accepted and ignored; see README.) A dotted field is a path into nested objects.
 */
const UNSUPPORTED_FIELDS: Record<string, Unsupported> = {
  http: {
    templateBody: { problem: (v, entry) => (v === true ? templateProblem(entry.body) : undefined) },
    crawl: { message: 'crawl is not supported: only the url itself would be checked' },
    awsSigV4: { message: 'awsSigV4 is not supported: the request would be sent unsigned' },
  },
  prometheus: FETCH_TLS,
  alertmanager: FETCH_TLS,
  elasticsearch: FETCH_TLS,
  opensearch: FETCH_TLS,
  postgres: SQL_TEMPLATE,
  mysql: SQL_TEMPLATE,
  dns: {
    srvReply: { message: 'srvReply is not supported: the SRV answer would not be compared; use exactreply ("target port priority weight")' },
  },
  folder: {
    'filter.since': { problem: (v) => templateProblem(v) },
  },
  exec: {
    checkout: { message: 'checkout is not supported: the script would run without the git checkout' },
    connections: { message: 'connections are not supported: the script would run without those credentials in its environment' },
  },
};

function unsupportedFields(type: string, entry: Record<string, unknown>, where: string): Array<{ path: string; message: string }> {
  const out: Array<{ path: string; message: string }> = [];
  for (const table of [UNSUPPORTED_FIELDS['*'] ?? {}, UNSUPPORTED_FIELDS[type] ?? {}]) {
    for (const [field, rule] of Object.entries(table)) {
      const path = field.split('.');
      const v = path.reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), entry);
      if (v === undefined || v === null || v === false) continue;
      const message = 'problem' in rule ? rule.problem(v, entry) : !rule.when || rule.when(v, entry) ? rule.message : undefined;
      if (message) out.push({ path: issuePath(where, path), message });
    }
  }
  return out;
}

/** The field names of a check type's schema (with the common ones), lower-cased to the name as declared. */
const fieldNames = new WeakMap<object, Map<string, string>>();
function namesOf(schema: object): Map<string, string> {
  let names = fieldNames.get(schema);
  if (!names) {
    const shape = (schema as { shape?: Record<string, unknown> }).shape ?? {};
    names = new Map([...Object.keys(CommonCheck.shape), ...Object.keys(shape)].map((k) => [k.toLowerCase(), k]));
    fieldNames.set(schema, names);
  }
  return names;
}

/**
 * A check entry with its top-level field names as the schema declares them. The reference decodes a spec with Go's
 * encoding/json, which matches field names without regard to case, so `queryType`, `minRecords` or `ResponseCodes`
 * work there; here they are renamed to `querytype`, `minrecords`, `responseCodes`. The same field written twice in
 * two casings is refused. Unknown fields are left as they are.
 */
function fieldsByName(schema: object, entry: unknown, where: string):
  | { ok: true; entry: unknown }
  | { ok: false; problems: Array<{ path: string; message: string }> } {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return { ok: true, entry };
  const names = namesOf(schema);
  const out: Record<string, unknown> = {};
  const from = new Map<string, string>();
  const problems: Array<{ path: string; message: string }> = [];
  let renamed = false;
  for (const [key, value] of Object.entries(entry)) {
    const name = names.get(key.toLowerCase()) ?? key;
    if (from.has(name)) {
      problems.push({ path: issuePath(where, [key]), message: `${key} is ${from.get(name)} again in another casing (field names are matched without case, as the reference does)` });
      continue;
    }
    from.set(name, key);
    if (name !== key) renamed = true;
    out[name] = value;
  }
  if (problems.length) return { ok: false, problems };
  return { ok: true, entry: renamed ? out : entry };
}

/**
 * Check keys the reference writes as one object, not a list (`webhook: {name, token}`: its CanarySpec has a single
 * webhook). Both forms are accepted; the object is the canary's one check of that type.
 */
const SINGLE_CHECK_KEYS = new Set(['webhook']);
export const acceptsSingleCheck = (key: string) => SINGLE_CHECK_KEYS.has(key);

/** One check of a canary, ready to be stored as a `checks` row. */
export interface CheckDef {
  type: string;
  name: string;
  description: string | null;
  icon: string | null;
  labels: Record<string, string> | null;
  severity: string | null;
  owner: string | null;
  namespace: string | null;
  /** The spec entry as written (stored in checks.spec). */
  spec: Record<string, unknown>;
}

export interface ValidCanary {
  fields: CanaryFields;
  schedule: Schedule;
  checks: CheckDef[];
}

/** A spec that does not validate: every reason, by path. */
export class SpecError extends Error {
  constructor(readonly problems: Array<{ path: string; message: string }>) {
    super(problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; '));
  }
}

/** Seconds or a Go duration to ms; undefined when absent. */
export function timeoutMs(t: number | string | undefined): number | undefined {
  if (t === undefined) return undefined;
  return typeof t === 'number' ? t * 1000 : parseGoDuration(t);
}

const issuePath = (prefix: string, path: PropertyKey[]) => [prefix, ...path.map(String)].filter(Boolean).join('.');

/**
 * Validates one check entry against the common fields and its type's schema. Returns the parsed parts or the
 * problems; used when a canary is saved and again before every run (the spec may predate a type's rules).
 */
export function parseCheck(type: string, written: unknown, where = ''):
  | { ok: true; common: CommonCheck; typed: unknown; timeoutMs?: number }
  | { ok: false; problems: Array<{ path: string; message: string }> } {
  const problems: Array<{ path: string; message: string }> = [];
  const ct = checkTypeOf(type);
  if (!ct) return { ok: false, problems: [{ path: where, message: `unknown check type "${type}"` }] };
  const cased = fieldsByName(ct.schema, written, where);
  if (!cased.ok) return { ok: false, problems: cased.problems };
  const entry = cased.entry;
  const common = CommonCheck.safeParse(entry);
  if (!common.success) for (const i of common.error.issues) problems.push({ path: issuePath(where, i.path), message: i.message });
  const typed = ct.schema.safeParse(entry);
  if (!typed.success) for (const i of typed.error.issues) problems.push({ path: issuePath(where, i.path), message: i.message });
  if (!common.success || !typed.success) return { ok: false, problems };
  const unsupported = unsupportedFields(type, entry as Record<string, unknown>, where);
  if (unsupported.length) return { ok: false, problems: unsupported };
  const name = checkName(common.data, entry as Record<string, unknown>);
  if (!name) return { ok: false, problems: [{ path: issuePath(where, ['name']), message: 'name is required (or a description or endpoint to name the check after)' }] };
  const c: CommonCheck = { ...common.data, name };
  for (const key of ['test', 'display'] as const) {
    if (c[key]?.jsonPath !== undefined) problems.push({ path: issuePath(where, [key, 'jsonPath']), message: `${key}.jsonPath is not supported; use ${key}.expr (CEL)` });
    // run in the QuickJS sandbox (runner.ts applyCommon); its errors show on the result
    const js = c[key]?.javascript;
    if (js !== undefined && (typeof js !== 'string' || !js.trim() || js.length > 65_536)) {
      problems.push({ path: issuePath(where, [key, 'javascript']), message: 'a script is a non-empty string of at most 65536 characters' });
    }
  }
  for (const key of ['test', 'display'] as const) {
    const template = c[key]?.template;
    if (template === undefined) continue;
    const err = typeof template !== 'string' ? 'a template is a string' : goTemplateError(template);
    if (err) problems.push({ path: issuePath(where, [key, 'template']), message: err });
  }
  for (const key of ['test', 'display'] as const) {
    const expr = c[key]?.expr;
    if (expr === undefined) continue;
    const err = expr.trim() ? celSyntaxError(expr) : 'empty expression';
    if (err) problems.push({ path: issuePath(where, [key, 'expr']), message: `invalid CEL: ${err}` });
  }
  const deps = (entry as Record<string, unknown>).dependsOn;
  if (deps !== undefined) {
    const parsedDeps = DependsOnList.safeParse(deps);
    if (!parsedDeps.success) for (const i of parsedDeps.error.issues) problems.push({ path: issuePath(where, ['dependsOn', ...i.path]), message: i.message });
  }
  if (c.transform) {
    for (const p of transformProblems(c.transform)) problems.push({ path: issuePath(where, ['transform', ...p.path]), message: p.message });
  }
  c.metrics?.forEach((m, i) => {
    const exprs: Array<[PropertyKey[], string | undefined]> = [
      [['metrics', i, 'value'], m.value],
      ...(m.labels ?? []).map((l, j): [PropertyKey[], string | undefined] => [['metrics', i, 'labels', j, 'valueExpr'], l.valueExpr]),
    ];
    for (const [path, expr] of exprs) {
      if (expr === undefined) continue;
      const err = expr.trim() ? celSyntaxError(expr) : 'empty expression';
      if (err) problems.push({ path: issuePath(where, path), message: `invalid CEL: ${err}` });
    }
  });
  let t: number | undefined;
  try {
    t = timeoutMs(c.timeout);
  } catch (err) {
    problems.push({ path: issuePath(where, ['timeout']), message: (err as Error).message });
  }
  if (problems.length) return { ok: false, problems };
  return { ok: true, common: c, typed: typed.data, timeoutMs: t };
}

/** Validates a whole Canary spec; throws SpecError with every problem found. */
export function validateCanarySpec(spec: unknown): ValidCanary {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) throw new SpecError([{ path: 'spec', message: 'expected an object' }]);
  const problems: Array<{ path: string; message: string }> = [];
  const base = CanaryFields.safeParse(spec);
  if (!base.success) for (const i of base.error.issues) problems.push({ path: issuePath('spec', i.path), message: i.message });
  let schedule: Schedule = { kind: 'never', text: '@never' };
  if (base.success) {
    try {
      schedule = parseSchedule(base.data.schedule, base.data.interval);
    } catch (err) {
      if (!(err instanceof ScheduleError)) throw err;
      problems.push({ path: base.data.schedule ? 'spec.schedule' : 'spec.interval', message: err.message });
    }
  }
  const checks: CheckDef[] = [];
  const seen = new Set<string>();
  const dependsOn: DependsOnEntry[] = [];
  for (const [key, value] of Object.entries(spec as Record<string, unknown>)) {
    if (CANARY_FIELDS.has(key)) continue;
    if (!checkTypeOf(key)) {
      problems.push({
        path: `spec.${key}`,
        message: REFERENCE_CHECK_KEYS.has(key) ? `check type "${key}" is not supported by this console` : `unknown field or check type "${key}"`,
      });
      continue;
    }
    const single = acceptsSingleCheck(key) && value !== null && typeof value === 'object' && !Array.isArray(value);
    if (!Array.isArray(value) && !single) {
      problems.push({
        path: `spec.${key}`,
        message: value !== null && typeof value === 'object'
          ? `expected a list of checks: write the ${key} check as a list item (\`${key}: [{...}]\`)`
          : 'expected a list of checks',
      });
      continue;
    }
    (single ? [value] : value as unknown[]).forEach((entry, i) => {
      const where = single ? `spec.${key}` : `spec.${key}.${i}`;
      const parsed = parseCheck(key, entry, where);
      if (!parsed.ok) return problems.push(...parsed.problems);
      const c = parsed.common;
      if (seen.has(`${key}/${c.name}`)) return problems.push({ path: `${where}.name`, message: `duplicate ${key} check name "${c.name}"` });
      seen.add(`${key}/${c.name}`);
      dependsOn.push({ type: key, name: c.name, where, dependsOn: dependsOnOf(entry as Record<string, unknown>) });
      checks.push({
        type: key, name: c.name, description: c.description ?? null, icon: c.icon ?? base.data?.icon ?? null,
        labels: c.labels ?? null, severity: c.severity ?? base.data?.severity ?? null, owner: c.owner ?? base.data?.owner ?? null,
        namespace: c.namespace ?? null, spec: entry as Record<string, unknown>,
      });
    });
  }
  if (!problems.length) problems.push(...dependsOnProblems(dependsOn));
  if (!problems.length && checks.length === 0) problems.push({ path: 'spec', message: 'a canary needs at least one check' });
  if (problems.length) throw new SpecError(problems);
  return { fields: base.data!, schedule, checks };
}
