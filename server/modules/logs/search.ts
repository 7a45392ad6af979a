import type pg from 'pg';
import { LoggingBackendSpec, type LogsRequest } from '../../contracts/logs.js';
import { LOGS_DEFAULT_LIMIT } from '../../contracts/logs.js';
import { isConnectionRef } from '../../lib/connection-ref.js';
import { ApiError, BadRequestError, NotFoundError } from '../../lib/errors.js';
import type { ValueFromResolver } from '../../lib/value-from.js';
import { hasValueFrom } from '../../lib/value-from.js';
import type { ConnectionResolver } from '../health/connections.js';
import { parseTime } from '../topology/history.js';
import { LOG_BACKENDS } from './backends/index.js';
import { componentForLogs, loggingBackends } from './queries.js';
import { BackendError, type BackendQuery, type LogBackend, type TextQuery } from './types.js';

/**
 * From a POST /api/logs body to the backend that serves it: the component and its selector (by name; empty → the
 * first), the time range and text checked (400 naming the field), then the first `logging_backends` row (oldest
 * first) with a `backends[]` entry whose route matches the selector's type, the component's external_id and the
 * labels, its credentials resolved (`connection://…` in `url`/`address`, EnvVar `valueFrom` in username/password).
 */

export interface ResolvedSearch {
  /** The backend's type (kubernetes, loki, …), for messages. */
  type: string;
  backend: LogBackend;
  config: Record<string, unknown>;
  query: BackendQuery;
}

export interface SearchDeps {
  db: Pick<pg.Pool, 'query'>;
  connections: ConnectionResolver;
  valueFrom: ValueFromResolver | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Selector { name: string; type: string; labels: Record<string, string> }

function selectorsOf(v: unknown): Selector[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObj).map((s) => ({
    name: typeof s.name === 'string' ? s.name : '',
    type: typeof s.type === 'string' ? s.type : '',
    labels: isObj(s.labels) ? Object.fromEntries(Object.entries(s.labels).filter(([, x]) => typeof x === 'string')) as Record<string, string> : {},
  }));
}

/** `/…/` is a regular expression (checked: 400 naming `query`); anything else a plain text. */
export function parseText(query: string | undefined): TextQuery | null {
  const s = (query ?? '').trim();
  if (!s) return null;
  const m = /^\/(.+)\/$/s.exec(s);
  if (m) {
    try {
      return { source: m[1], regex: true, re: new RegExp(m[1], 'i') };
    } catch (err) {
      throw new BadRequestError(`query: invalid regular expression: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`, { query: 'invalid regular expression' });
    }
  }
  return { source: s, regex: false, re: new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i') };
}

/** One route label against the labels: `a,b` any of, `x*` a glob, `!x` not x, `*` present. */
function labelMatches(want: string, have: string | undefined): boolean {
  if (want.startsWith('!')) return !labelMatches(want.slice(1), have);
  if (have === undefined) return false;
  return want.split(',').map((s) => s.trim()).some((alt) => {
    if (!alt.includes('*')) return alt === have;
    return new RegExp(`^${alt.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(have);
  });
}

/** Whether a backend's routes take the selector (no routes: every selector). */
export function routeMatches(routes: unknown, type: string, externalId: string, labels: Record<string, string>): boolean {
  if (!Array.isArray(routes) || routes.length === 0) return true;
  return routes.filter(isObj).some((r) => {
    if (typeof r.type === 'string' && r.type && r.type.toLowerCase() !== type.toLowerCase()) return false;
    const prefix = typeof r.idPrefix === 'string' ? r.idPrefix : typeof r.id_prefix === 'string' ? r.id_prefix : '';
    if (prefix && !externalId.startsWith(prefix)) return false;
    if (isObj(r.labels)) for (const [k, v] of Object.entries(r.labels)) if (typeof v === 'string' && !labelMatches(v, labels[k])) return false;
    return true;
  });
}

/** The backend block with `url`/`username`/`password` as plain values. */
async function credentials(deps: SearchDeps, type: string, row: { namespace: string | null }, block: Record<string, unknown>): Promise<Record<string, unknown>> {
  const ns = row.namespace || 'default';
  let out: Record<string, unknown> = { ...block };
  try {
    if (hasValueFrom(out)) {
      if (!deps.valueFrom) throw new Error('valueFrom needs a Kubernetes cluster connection');
      out = (await deps.valueFrom.resolve(out, ns)).spec;
    }
    const ref = [out.url, out.address, out.connection].find(isConnectionRef) as string | undefined;
    if (ref) {
      const merged = await deps.connections.resolve('http', { connection: ref }, ns);
      out.url = merged.spec.url;
      delete out.address;
      if (out.username === undefined && merged.spec.username !== undefined) out.username = merged.spec.username;
      if (out.password === undefined && merged.spec.password !== undefined) out.password = merged.spec.password;
    }
  } catch (err) {
    throw new BackendError(type, `credentials: ${(err as Error).message}`);
  }
  for (const k of ['username', 'password']) if (isObj(out[k])) out[k] = (out[k] as { value?: unknown }).value ?? '';
  return out;
}

export async function resolveSearch(deps: SearchDeps, body: LogsRequest, signal: AbortSignal, now = new Date()): Promise<ResolvedSearch> {
  if (!body.id) throw new BadRequestError('component ID is required', { id: 'required' });
  const component = UUID.test(body.id) ? await componentForLogs(deps.db, body.id.toLowerCase()) : undefined;
  if (!component) throw new NotFoundError('component', body.id.slice(0, 64));
  const selectors = selectorsOf(component.log_selectors);
  if (!selectors.length) throw new NotFoundError(`component ${component.name} has no log selectors; log selector`, body.name || undefined);
  const selector = body.name ? selectors.find((s) => s.name === body.name) : selectors[0];
  if (!selector) {
    throw new ApiError(404, 'not_found', `log selector "${body.name}" not found on component ${component.name}; its selectors: ${selectors.map((s) => s.name).join(', ')}`,
      { names: selectors.map((s) => s.name) });
  }
  const start = parseTime('start', body.start ?? '1h', now);
  const end = body.end ? parseTime('end', body.end, now) : now;
  if (start.getTime() > end.getTime()) throw new BadRequestError('start: after end', { start: 'after end' });
  const text = parseText(body.query);
  const labels = { ...selector.labels, ...(body.labels ?? {}) };

  for (const row of await loggingBackends(deps.db)) {
    const spec = LoggingBackendSpec.safeParse(row.spec);
    if (!spec.success) continue;
    for (const entry of spec.data.backends ?? []) {
      for (const [type, block] of Object.entries(entry)) {
        const backend = Object.hasOwn(LOG_BACKENDS, type) ? LOG_BACKENDS[type] : undefined;
        if (!backend || !isObj(block) || !routeMatches(block.routes, selector.type, component.external_id, labels)) continue;
        const config = await credentials(deps, type, row, block);
        // the backend's own labels narrow nothing; they are added to what it finds (apm-hub's `labels`)
        return {
          type, backend, config,
          query: {
            externalId: component.external_id, type: selector.type, labels, text,
            startMs: start.getTime(), endMs: end.getTime(), limit: body.limit ?? LOGS_DEFAULT_LIMIT, page: body.page, signal,
          },
        };
      }
    }
  }
  throw new ApiError(404, 'not_found', `no logging backend serves log selector "${selector.name}" (type ${selector.type || 'none'}) of component ${component.name}`);
}
