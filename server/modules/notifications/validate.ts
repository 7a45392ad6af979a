import { parse } from '@bufbuild/cel';
import { celSyntaxError, parseLongDuration } from '../../lib/cel.js';
import { NOTIFICATION_SCHEMES, notificationTypeOf } from '../../contracts/notification-connections.js';
import { NOTIFICATION_EVENTS, NotificationServiceEntry } from '../../contracts/notifications.js';
import { sourceOfEvent } from '../events/sources/index.js';
import { parseLabelSelector, parseSelector } from '../topology/runner/links/resource-selector.js';
import { templateProblems } from './render/index.js';
import { connectionExists, existing } from './queries.js';
import { selectorList } from './silences/match.js';
import { parseTimeExpr } from './silences/date-math.js';
import type { Problem, Q } from './types.js';

/**
 * Save-time validation of rules and silences (issue 15 "Rules", "Silences", "Bad input"): every problem at its
 * dotted path. The same checks run for POST /api/notification/silence, /api/db writes (./db-writers.ts) and the CR
 * reconciler, on the whole row (a PATCH is merged with the stored row first).
 */

type Row = Record<string, unknown>;

/** The CEL variables a rule's filter may use, by event kind (the source registry's `variables`; events/sources). */
const KIND_VARIABLES: Record<string, readonly string[]> = {
  check: ['check', 'canary'],
  canary: ['canary'],
  incident: ['incident', 'responder', 'comment', 'evidence', 'hypothesis'],
  config: ['config'],
  component: ['component'],
  playbook: ['playbook', 'run', 'action'],
};
/** Variables every notification event carries (the reference's CEL env: agent, permalink, silenceURL…). */
const COMMON_VARIABLES = ['agent', 'permalink', 'silenceURL', 'event', 'properties', 'new_state', 'old_state', 'status'];
/** Namespaces of qualified functions (`time.Now()`), not variables. */
const FUNCTION_NAMESPACES = /^(time|uuid|crypto|base64|k8s|math|strings|conv|regexp|random|filepath|path|net|gcp|aws|test|data|coll|sets|lists|optional)$/;

/** What a silence's filter may use: every kind a silence can name. */
const SILENCE_VARIABLES = [...KIND_VARIABLES.check, ...KIND_VARIABLES.config, ...KIND_VARIABLES.component, ...COMMON_VARIABLES];

/** The schemes a notification URL may have (part C's contract: shoutrrr services, generic+http(s), http(s)). */
export const NOTIFICATION_URL_SCHEMES: readonly string[] = [...new Set(Object.values(NOTIFICATION_SCHEMES).flat())];

const isStr = (v: unknown): v is string => typeof v === 'string';
const given = (v: unknown) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Top-level identifiers an expression reads (comprehension variables and function namespaces excluded). */
function freeIdentifiers(expr: string): string[] {
  const found = new Set<string>();
  const bound = new Set<string>();
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(walk);
    const kind = (node as { exprKind?: { case?: string; value?: Record<string, unknown> } }).exprKind;
    if (kind?.case === 'identExpr' && isStr(kind.value?.name)) found.add(kind.value.name);
    if (kind?.case === 'comprehensionExpr') {
      for (const k of ['iterVar', 'iterVar2', 'accuVar']) if (isStr(kind.value?.[k]) && kind.value[k]) bound.add(kind.value[k] as string);
    }
    for (const [k, v] of Object.entries(node)) if (k !== '$typeName') walk(v);
  };
  try {
    walk(parse(expr).expr);
  } catch {
    return [];
  }
  return [...found].filter((n) => !bound.has(n) && !n.startsWith('@') && !FUNCTION_NAMESPACES.test(n));
}

/** A CEL expression's problem: does not compile, or reads a variable the events do not carry. */
export function celProblem(path: string, expr: string, variables: readonly string[]): Problem | null {
  const err = celSyntaxError(expr);
  if (err) return { path, message: `invalid CEL expression: ${err}` };
  const unknown = freeIdentifiers(expr).filter((n) => !variables.includes(n));
  if (unknown.length) {
    return { path, message: `undeclared reference to '${unknown[0]}' (the variables here: ${[...new Set(variables)].join(', ')})` };
  }
  return null;
}

/** The variables of the events named (unknown events ignored; their own problem says so). */
export function eventVariables(events: readonly string[]): string[] {
  const vars = new Set(COMMON_VARIABLES);
  for (const e of events) for (const v of [...(sourceOfEvent(e)?.variables ?? []), ...(KIND_VARIABLES[e.split('.')[0]] ?? [])]) vars.add(v);
  return [...vars];
}

/** A duration as nanoseconds: a number is already ns, a string is a duration (`5m`, `1h30m`, `1d`); null if neither. */
export function durationNs(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (isStr(v)) {
    if (/^\d+$/.test(v.trim())) return Number(v);
    const ms = parseLongDuration(v);
    return ms === null ? null : ms * 1e6;
  }
  return null;
}

/** A notification URL's problem: http(s) (a generic webhook) or a known service scheme. */
export function urlProblem(path: string, url: string): Problem | null {
  if (url.includes('$(')) return null; // placeholders of a connection row, filled when sent
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url.trim());
  if (!m) return { path, message: `not a URL: expected http(s):// or a service URL such as slack://` };
  const scheme = m[1].toLowerCase();
  if (scheme === 'http' || scheme === 'https') {
    try {
      new URL(url);
      return null;
    } catch {
      return { path, message: 'not a valid http(s) URL' };
    }
  }
  if (notificationTypeOf(url)) return null;
  return { path, message: `unsupported scheme "${scheme}" (http, https or one of ${NOTIFICATION_URL_SCHEMES.join(', ')})` };
}

/** Problems of service entries (custom_services, a team's spec.notifications) at `base[i]`. */
export async function serviceProblems(db: Q, base: string, entries: unknown, variables: readonly string[]): Promise<Problem[]> {
  if (!Array.isArray(entries)) return [{ path: base, message: 'expected a list of {connection | url, properties, filter}' }];
  const problems: Problem[] = [];
  for (const [i, raw] of entries.entries()) {
    const at = `${base}[${i}]`;
    const parsed = NotificationServiceEntry.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      problems.push({ path: [at, ...issue.path.map(String)].join('.'), message: issue.message });
      continue;
    }
    const e = parsed.data;
    if (!e.connection && !e.url) problems.push({ path: at, message: 'a connection or a url is required' });
    if (e.connection && e.url) problems.push({ path: `${at}.url`, message: 'give a connection or a url, not both' });
    if (e.connection && !(await connectionExists(db, e.connection))) {
      problems.push({ path: `${at}.connection`, message: `unknown connection "${e.connection}"` });
    }
    if (e.url) {
      const p = urlProblem(`${at}.url`, e.url);
      if (p) problems.push(p);
    }
    if (e.filter) {
      const p = celProblem(`${at}.filter`, e.filter, variables);
      if (p) problems.push(p);
    }
  }
  return problems;
}

const RECIPIENT_KINDS = ['person_id', 'team_id', 'custom_services'] as const;
const MIN_WAIT_FOR_NS = 60e9;

/** Problems of a whole rule row (issue 15 "Rules"); [] when it may be saved. */
export async function validateRule(db: Q, body: Row): Promise<Problem[]> {
  const problems: Problem[] = [];
  if ('name' in body && (!isStr(body.name) || !body.name.trim())) problems.push({ path: 'name', message: 'a name is required' });

  const events = body.events;
  if (!Array.isArray(events) || events.length === 0) {
    problems.push({ path: 'events', message: 'at least one event is required' });
  } else {
    events.forEach((e, i) => {
      if (!isStr(e)) problems.push({ path: `events[${i}]`, message: 'expected an event name' });
      else if (!(NOTIFICATION_EVENTS as readonly string[]).includes(e)) problems.push({ path: `events[${i}]`, message: `unknown event "${e}"` });
    });
  }
  const variables = eventVariables(Array.isArray(events) ? events.filter(isStr) : []);

  if (given(body.filter)) {
    const p = isStr(body.filter) ? celProblem('filter', body.filter, variables) : { path: 'filter', message: 'expected a CEL expression' };
    if (p) problems.push(p);
  }
  for (const field of ['title', 'template'] as const) {
    if (!given(body[field])) continue;
    if (!isStr(body[field])) problems.push({ path: field, message: 'expected text' });
    else problems.push(...templateProblems(body[field] as string, field));
  }

  const kinds = RECIPIENT_KINDS.filter((k) => given(body[k]));
  if (kinds.length === 0) {
    problems.push({ path: 'person_id', message: 'a recipient is required: person_id, team_id or custom_services' });
  } else if (kinds.length > 1) {
    problems.push({ path: kinds[1], message: `only one recipient kind: ${kinds.join(' and ')} are both given` });
  }
  for (const [field, table, what] of [['person_id', 'people', 'person'], ['team_id', 'teams', 'team']] as const) {
    const v = body[field];
    if (!given(v)) continue;
    if (!isStr(v) || !UUID.test(v) || !(await existing(db, table, [v])).size) problems.push({ path: field, message: `unknown ${what} "${String(v)}"` });
  }
  if (given(body.custom_services)) problems.push(...await serviceProblems(db, 'custom_services', body.custom_services, variables));
  if (given(body.fallback_custom_services)) {
    problems.push(...await serviceProblems(db, 'fallback_custom_services', body.fallback_custom_services, variables));
  }

  if (given(body.wait_for)) {
    const ns = durationNs(body.wait_for);
    if (ns === null) problems.push({ path: 'wait_for', message: `invalid duration "${String(body.wait_for)}"` });
    else if (ns < MIN_WAIT_FOR_NS) problems.push({ path: 'wait_for', message: 'Duration must be greater than 1 minute' });
  }
  for (const field of ['group_by_interval', 'fallback_delay', 'wait_for_eval_period'] as const) {
    if (given(body[field]) && durationNs(body[field]) === null) problems.push({ path: field, message: `invalid duration "${String(body[field])}"` });
  }
  if (given(body.repeat_interval)) {
    const ms = isStr(body.repeat_interval) ? parseLongDuration(body.repeat_interval) : null;
    if (ms === null || ms <= 0) problems.push({ path: 'repeat_interval', message: `invalid duration "${String(body.repeat_interval)}" (e.g. 1h, 1d, 1w; 1m is a minute)` });
  }
  if (given(body.properties) && (typeof body.properties !== 'object' || Array.isArray(body.properties))) {
    problems.push({ path: 'properties', message: 'expected an object of strings' });
  }
  if (given(body.quiet_hours)) problems.push(...quietHoursProblems(body.quiet_hours, variables));
  return problems;
}

const HHMM = /^([01]?\d|2[0-3]):[0-5]\d$/;
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** quiet_hours {timezone, days, start, end, except} (pipeline/quiet-hours.ts): times HH:MM, a known timezone, CEL. */
export function quietHoursProblems(q: unknown, variables: readonly string[]): Problem[] {
  if (typeof q !== 'object' || q === null || Array.isArray(q)) return [{ path: 'quiet_hours', message: 'expected {timezone, days, start, end, except}' }];
  const v = q as Record<string, unknown>;
  const out: Problem[] = [];
  const extra = Object.keys(v).filter((k) => !['timezone', 'days', 'start', 'end', 'except'].includes(k));
  if (extra.length) out.push({ path: `quiet_hours.${extra[0]}`, message: 'unknown field' });
  for (const f of ['start', 'end'] as const) {
    if (!isStr(v[f]) || !HHMM.test(v[f] as string)) out.push({ path: `quiet_hours.${f}`, message: 'expected a time HH:MM, e.g. 22:00' });
  }
  if (isStr(v.start) && v.start === v.end) out.push({ path: 'quiet_hours.end', message: 'the end must differ from the start' });
  if (given(v.timezone)) {
    let known = isStr(v.timezone);
    try {
      if (known) new Intl.DateTimeFormat('en-US', { timeZone: v.timezone as string });
    } catch {
      known = false;
    }
    if (!known) out.push({ path: 'quiet_hours.timezone', message: `unknown timezone "${String(v.timezone).slice(0, 60)}"` });
  }
  if (given(v.days)) {
    const days = Array.isArray(v.days) ? v.days : [v.days];
    days.forEach((d, i) => {
      if (!isStr(d) || !WEEKDAYS.includes(d.slice(0, 3).toLowerCase())) out.push({ path: `quiet_hours.days[${i}]`, message: 'expected a day: mon … sun' });
    });
  }
  if (given(v.except)) {
    const p = isStr(v.except) ? celProblem('quiet_hours.except', v.except as string, variables) : { path: 'quiet_hours.except', message: 'expected a CEL expression' };
    if (p) out.push(p);
  }
  return out;
}

export const SILENCE_TARGETS = ['check_id', 'canary_id', 'config_id', 'component_id'] as const;
const TARGET_TABLES = { check_id: 'checks', canary_id: 'canaries', config_id: 'config_items', component_id: 'components' } as const;

/** Problems of a whole silence row (issue 15 "Silences"); from/until already resolved to times (or left as text). */
export async function validateSilence(db: Q, body: Row, now: Date = new Date()): Promise<Problem[]> {
  const problems: Problem[] = [];
  const targets = SILENCE_TARGETS.filter((k) => given(body[k]));
  if (targets.length > 1) {
    problems.push({ path: targets[1], message: `at most one of check_id, canary_id, config_id, component_id: ${targets.join(' and ')} are both given` });
  }
  for (const t of targets) {
    const v = body[t];
    if (!isStr(v) || !UUID.test(v)) {
      problems.push({ path: t, message: `not an id: "${String(v)}"` });
      continue;
    }
    const { rows } = await db.query(`SELECT 1 FROM ${TARGET_TABLES[t]} WHERE id = $1::uuid`, [v]);
    if (!rows.length) problems.push({ path: t, message: `unknown ${t.replace('_id', '')} "${v}"` });
  }
  const selectors = selectorList(body.selectors);
  if (!targets.length && !given(body.filter) && !selectors.length) {
    problems.push({ path: 'resource', message: 'a silence needs a resource (check, canary, config or component), a filter or selectors' });
  }
  if (given(body.filter)) {
    const p = isStr(body.filter) ? celProblem('filter', body.filter, SILENCE_VARIABLES) : { path: 'filter', message: 'expected a CEL expression' };
    if (p) problems.push(p);
  }
  if (given(body.selectors) && typeof body.selectors !== 'object') problems.push({ path: 'selectors', message: 'expected a list of resource selectors' });
  selectors.forEach((raw, i) => {
    try {
      const sel = parseSelector(raw) as Record<string, unknown>;
      for (const k of ['labelSelector', 'fieldSelector', 'tagSelector']) if (isStr(sel[k]) && sel[k]) parseLabelSelector(sel[k] as string, k);
    } catch (err) {
      problems.push({ path: Array.isArray(body.selectors) ? `selectors[${i}]` : 'selectors', message: (err as Error).message });
    }
  });
  const times: Partial<Record<'from' | 'until', Date>> = {};
  for (const f of ['from', 'until'] as const) {
    const v = body[f];
    if (!given(v)) continue;
    const t = v instanceof Date ? v : isStr(v) ? parseTimeExpr(v, now) : null;
    if (!t) problems.push({ path: f, message: `invalid time "${String(v)}": RFC 3339 or date math such as now+2h` });
    else times[f] = t;
  }
  if (times.from && times.until && times.from.getTime() >= times.until.getTime()) {
    problems.push({ path: 'until', message: 'until must be after from' });
  }
  if ('recursive' in body && body.recursive !== null && typeof body.recursive !== 'boolean') {
    problems.push({ path: 'recursive', message: 'expected true or false' });
  }
  return problems;
}
