import type pg from 'pg';
import { parse as parseYaml } from 'yaml';
import { DURATION_RE } from '../../contracts/playbooks.js';
import { parseLongDuration } from '../../lib/cel.js';
import { BadRequestError } from '../../lib/errors.js';
import { existingIds, ID_TABLES } from './api-queries.js';
import { renderTemplates, type TemplateEnv } from './templates.js';

/**
 * A playbook's parameters at run time (issue 14 "Parameters"): defaults rendered against the resource, and each
 * value checked by its type before a run is created. Values are kept as the reference keeps them: strings (a
 * checkbox "true"/"false"); a list of ids stays a list.
 */

type Db = pg.Pool;
type Param = Record<string, unknown> & { name: string };

const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MILLICORES = /^(\d+m|\d+(\.\d+)?)$/;
const BYTES = /^\d+(\.\d+)?(Ki|Mi|Gi|Ti)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** What a read shows for a secret, and what a re-run may send back to reuse it. */
export const MASKED_SECRET = '***';

/** A JSON object (not an array). */
export const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The spec's parameter definitions (named ones only). */
export function paramDefs(spec: Record<string, unknown>): Param[] {
  const list = Array.isArray(spec.parameters) ? spec.parameters : [];
  return list.filter((p): p is Param => isObj(p) && typeof p.name === 'string' && p.name !== '');
}

/**
 * The definitions with each `default` rendered against the env (the resource, the caller, the playbook). A default
 * that cannot be rendered is a 400 naming the parameter.
 */
export function renderDefaults(defs: readonly Param[], env: TemplateEnv): Param[] {
  return defs.map((d) => {
    if (typeof d.default !== 'string') return d;
    try {
      return { ...d, default: renderTemplates(d.default, env, () => undefined) };
    } catch (err) {
      throw new BadRequestError(`parameter ${d.name}: its default could not be rendered: ${(err as Error).message}`);
    }
  });
}

const empty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
const props = (d: Param): Record<string, unknown> => (isObj(d.properties) ? d.properties : {});
const num = (v: unknown): number | undefined => (v === undefined || v === null || v === '' ? undefined : Number(v));
/** A duration bound (`5m`, `7d`; a bare 0) as milliseconds, with its text for messages. */
const durationBound = (v: unknown): { ms: number; text: string } | undefined => {
  if (typeof v === 'number') return v === 0 ? { ms: 0, text: '0' } : undefined;
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  const ms = parseLongDuration(v);
  return ms === null ? undefined : { ms, text: v.trim() };
};
/** `properties.options` as values: `{label?, value}` objects or plain strings. */
const optionValues = (p: Record<string, unknown>): string[] =>
  Array.isArray(p.options)
    ? p.options.flatMap((o) => (typeof o === 'string' ? [o] : isObj(o) && o.value !== undefined ? [String(o.value)] : []))
    : [];

/** The value as stored: scalars as strings, a list of strings as it is. */
function normalise(v: unknown): unknown {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return v;
}

/** The problem with one value of a parameter, or null; ids are checked afterwards, in bulk. */
function problem(d: Param, v: unknown): string | null {
  const p = props(d);
  const type = typeof d.type === 'string' ? d.type : 'text';
  const text = typeof v === 'string' ? v : undefined;
  if (Array.isArray(v)) {
    if (!['people', 'team', 'check', 'config', 'component', 'list'].includes(type)) return 'expected one value';
    return v.every((x) => typeof x === 'string') ? null : 'expected strings';
  }
  if (text === undefined) return 'expected a string';
  switch (type) {
    case 'text': {
      const minLength = num(p.minLength);
      const maxLength = num(p.maxLength);
      if (minLength !== undefined && text.length < minLength) return `must be at least ${minLength} characters`;
      if (maxLength !== undefined && text.length > maxLength) return `must be at most ${maxLength} characters`;
      const min = num(p.min);
      const max = num(p.max);
      if (min !== undefined || max !== undefined) {
        const n = Number(text);
        if (text.trim() === '' || !Number.isFinite(n)) return 'must be a number';
        if (min !== undefined && n < min) return `must be at least ${min}`;
        if (max !== undefined && n > max) return `must be at most ${max}`;
      }
      if (typeof p.regex === 'string' && p.regex) {
        let re: RegExp;
        try {
          re = new RegExp(p.regex);
        } catch {
          return 'its regex is not valid';
        }
        if (!re.test(text)) return `must match ${p.regex}`;
      }
      if (p.format === 'dns1123' && (text.length > 63 || !DNS1123.test(text))) {
        return 'must be a DNS-1123 label (lower-case letters, digits and -, at most 63)';
      }
      if (!(p.multiline === true || p.multiline === 'true') && /[\r\n]/.test(text)) return 'must be one line';
      return null;
    }
    case 'checkbox':
      return text === 'true' || text === 'false' ? null : 'must be true or false';
    case 'list': {
      const options = optionValues(p);
      return !options.length || options.includes(text) ? null : `must be one of ${options.join(', ')}`;
    }
    case 'code': {
      // The language is free-form (Monaco's id); JSON and YAML (the default) are parsed, others taken as they are.
      const language = typeof p.language === 'string' && p.language.trim() ? p.language.trim().toLowerCase() : 'yaml';
      if (language !== 'json' && language !== 'yaml' && language !== 'yml') return null;
      try {
        if (language === 'json') JSON.parse(text);
        else parseYaml(text);
        return null;
      } catch (err) {
        return `is not valid ${language === 'json' ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0].slice(0, 120)}`;
      }
    }
    case 'millicores':
      return MILLICORES.test(text) ? null : 'must be CPU as millicores (500m) or cores (0.5)';
    case 'bytes':
      return BYTES.test(text) ? null : 'must be a size such as 512Mi, 2Gi or 1Ti';
    case 'duration': {
      // `options` are suggestions (the reference offers them in a dropdown); any duration within min/max is taken.
      const ms = DURATION_RE.test(text) ? parseLongDuration(text) : null;
      if (ms === null) return 'must be a duration such as 30s, 5m or 1h30m';
      const min = durationBound(p.min);
      const max = durationBound(p.max);
      if (min && ms < min.ms) return `must be at least ${min.text}`;
      if (max && ms > max.ms) return `must be at most ${max.text}`;
      return null;
    }
    case 'people': case 'team': case 'check': case 'config': case 'component':
      return UUID.test(text) ? null : 'must be an id';
    default:
      return null;
  }
}

export interface ResolveParamsInput {
  defs: readonly Param[];
  given: Readonly<Record<string, unknown>>;
  /** The parent run's stored parameters: a secret sent back as `***` reuses the parent's (sealed) value. */
  parentParams?: Readonly<Record<string, unknown>> | null;
}

/**
 * The run's parameters: the given values, defaults (already rendered) where none is given, each checked by its
 * type; unknown names refused. 400 naming the parameter (`details` maps each bad one to its message).
 */
export async function resolveParams(db: Db, input: ResolveParamsInput): Promise<Record<string, unknown>> {
  const byName = new Map(input.defs.map((d) => [d.name, d]));
  const issues: Record<string, string> = {};
  for (const name of Object.keys(input.given)) if (!byName.has(name)) issues[name] = 'no such parameter';
  const out: Record<string, unknown> = {};
  const ids: { table: keyof typeof ID_TABLES; name: string; values: string[] }[] = [];
  for (const d of input.defs) {
    let v = normalise(Object.hasOwn(input.given, d.name) ? input.given[d.name] : undefined);
    if (empty(v) && d.default !== undefined && d.default !== null) v = normalise(d.default);
    if (d.type === 'secret' && v === MASKED_SECRET && input.parentParams && Object.hasOwn(input.parentParams, d.name)) {
      v = input.parentParams[d.name];
      out[d.name] = v;
      continue;
    }
    if (empty(v)) {
      if (d.required) issues[d.name] = 'is required';
      continue;
    }
    const bad = problem(d, v);
    if (bad) {
      issues[d.name] = bad;
      continue;
    }
    if (typeof d.type === 'string' && d.type in ID_TABLES) {
      ids.push({ table: d.type as keyof typeof ID_TABLES, name: d.name, values: Array.isArray(v) ? (v as string[]) : [v as string] });
    }
    out[d.name] = v;
  }
  for (const { table, name, values } of ids) {
    const found = await existingIds(db, table, values);
    const missing = values.filter((x) => !found.has(x.toLowerCase()));
    if (missing.length) issues[name] = `no ${table === 'people' ? 'person' : table} ${missing[0]}`;
  }
  const names = Object.keys(issues);
  if (names.length) {
    throw new BadRequestError(names.map((n) => `parameter ${n}: ${issues[n]}`).join('; '), issues, 'invalid_params');
  }
  return out;
}
