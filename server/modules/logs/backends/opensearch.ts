import type { Client } from '@opensearch-project/opensearch';
import type { LogLine } from '../../../contracts/logs.js';
import { guessSeverity, normaliseSeverity } from '../severity.js';
import { BackendError, decodePage, encodePage, isAbort, sleep, type BackendContext, type BackendQuery, type LogBackend } from '../types.js';

/**
 * `opensearch` / `elasticsearch`: `_search` on `index` through @opensearch-project/opensearch, sorted by the
 * timestamp field (newest first) then `fields.tiebreaker` (`_id`), paged with `search_after` on both; the text as a query_string on the message field (a
 * phrase, or `/regex/`), the labels as match_phrase filters (`a,b` any of, `!x` not x), the time range as a range
 * filter. Field mapping (`fields`): timestamp (`@timestamp`), message (`message`), severity (else guessed from the
 * line), labels (comma-separated fields; default: the document's other scalar fields, minus `exclusions`).
 */

type Hit = { _id?: string; _source?: Record<string, unknown>; sort?: unknown[] };
interface Page { after: unknown[] }

// Loaded at the first search, not with the app: most consoles never query OpenSearch, and importing the client costs
// a few hundred ms of CPU at every start (and in every test process).
let library: Promise<typeof import('@opensearch-project/opensearch')> | undefined;
const openSearch = () => (library ??= import('@opensearch-project/opensearch'));

const clients = new Map<string, Client>();

function clientFor(Client: typeof import('@opensearch-project/opensearch').Client, config: Record<string, unknown>, timeoutMs: number): Client {
  const node = String(config.url ?? config.address ?? '');
  const username = typeof config.username === 'string' ? config.username : '';
  const password = typeof config.password === 'string' ? config.password : '';
  const key = `${node}\u0000${username}\u0000${password}\u0000${timeoutMs}`;
  let c = clients.get(key);
  if (!c) {
    if (clients.size > 50) {
      for (const old of clients.values()) void old.close();
      clients.clear();
    }
    c = new Client({ node, maxRetries: 0, requestTimeout: timeoutMs, ...(username || password ? { auth: { username, password } } : {}) });
    clients.set(key, c);
  }
  return c;
}

function get(o: Record<string, unknown>, path: string): unknown {
  if (path in o) return o[path];
  let cur: unknown = o;
  for (const p of path.split('.')) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

const scalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

function fieldsOf(config: Record<string, unknown>) {
  const f = (config.fields ?? {}) as Record<string, unknown>;
  return {
    timestamp: typeof f.timestamp === 'string' && f.timestamp ? f.timestamp : '@timestamp',
    message: typeof f.message === 'string' && f.message ? f.message : 'message',
    severity: typeof f.severity === 'string' && f.severity ? f.severity : undefined,
    labels: typeof f.labels === 'string' && f.labels ? f.labels.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    exclusions: new Set(Array.isArray(f.exclusions) ? (f.exclusions as unknown[]).map(String) : []),
    // the second sort key, so lines sharing a millisecond are neither skipped nor repeated at a page boundary:
    // `_id` by default (Elasticsearch 8 refuses it unless indices.id_field_data.enabled: name a unique keyword field
    // there, such as `event.id`); `none` sorts on the timestamp alone
    tiebreaker: typeof f.tiebreaker === 'string' ? (f.tiebreaker === 'none' || !f.tiebreaker ? undefined : f.tiebreaker) : '_id',
  };
}

function toLine(hit: Hit, f: ReturnType<typeof fieldsOf>): LogLine {
  const src = hit._source ?? {};
  const ts = get(src, f.timestamp);
  const d = typeof ts === 'number' ? new Date(ts) : new Date(String(ts ?? ''));
  const message = String(get(src, f.message) ?? '');
  const labels: Record<string, string> = {};
  const put = (k: string, v: unknown) => {
    if (scalar(v)) labels[k] = String(v);
    else if (typeof v === 'object' && v !== null && !Array.isArray(v)) for (const [k2, v2] of Object.entries(v)) if (scalar(v2)) labels[`${k}.${k2}`] = String(v2);
  };
  if (f.labels) {
    for (const k of f.labels) {
      const v = get(src, k);
      // one field holding an object of labels: its keys as they are
      if (f.labels.length === 1 && typeof v === 'object' && v !== null && !Array.isArray(v)) {
        for (const [k2, v2] of Object.entries(v)) if (scalar(v2)) labels[k2] = String(v2);
      } else put(k, v);
    }
  } else {
    for (const [k, v] of Object.entries(src)) {
      if (k === f.timestamp || k === f.message || k === f.severity || f.exclusions.has(k)) continue;
      put(k, v);
    }
  }
  const severity = (f.severity ? normaliseSeverity(get(src, f.severity)) : undefined) ?? guessSeverity(message);
  return { timestamp: Number.isNaN(d.getTime()) ? String(ts ?? '') : d.toISOString(), message, labels, ...(severity ? { severity } : {}) };
}

function labelFilters(labels: Record<string, string>) {
  const filter: unknown[] = [];
  const mustNot: unknown[] = [];
  for (const [k, v] of Object.entries(labels)) {
    if (v === '') continue;
    if (v.startsWith('!')) mustNot.push({ match_phrase: { [k]: v.slice(1) } });
    else if (v.includes(',')) filter.push({ bool: { should: v.split(',').map((s) => ({ match_phrase: { [k]: s.trim() } })), minimum_should_match: 1 } });
    else filter.push({ match_phrase: { [k]: v } });
  }
  return { filter, mustNot };
}

const phrase = (s: string) => `"${s.replace(/[\\"]/g, '\\$&')}"`;

/** The `_search` body of a search (exported for the test server's tests). */
export function searchBody(config: Record<string, unknown>, q: BackendQuery, range: Record<string, string>, order: 'asc' | 'desc', size: number, after?: unknown[], track = false) {
  const f = fieldsOf(config);
  const { filter, mustNot } = labelFilters(q.labels);
  filter.push({ range: { [f.timestamp]: { ...range, format: 'strict_date_optional_time' } } });
  const must: unknown[] = [];
  if (q.text) must.push({ query_string: { query: q.text.regex ? `/${q.text.source}/` : phrase(q.text.source), default_field: f.message } });
  if (typeof config.query === 'string' && config.query.trim()) must.push({ query_string: { query: config.query } });
  return {
    size,
    sort: [{ [f.timestamp]: { order } }, ...(f.tiebreaker ? [{ [f.tiebreaker]: { order } }] : [])],
    // counted once, on a search's first request
    track_total_hits: track,
    query: { bool: { filter, ...(must.length ? { must } : {}), ...(mustNot.length ? { must_not: mustNot } : {}) } },
    ...(after ? { search_after: after } : {}),
  };
}

async function run(ctx: BackendContext, name: string, config: Record<string, unknown>, q: BackendQuery, body: object): Promise<{ hits: Hit[]; total?: number }> {
  const index = typeof config.index === 'string' && config.index ? config.index : '_all';
  if (!config.url && !config.address) throw new BackendError(name, 'url is required');
  const { Client, errors } = await openSearch();
  const req = clientFor(Client, config, ctx.timeoutMs).search({ index, body } as never);
  const abort = () => req.abort();
  q.signal.addEventListener('abort', abort, { once: true });
  try {
    const res = (await req) as unknown as { body: { hits?: { hits?: Hit[]; total?: { value?: number } | number } } };
    const hits = res.body.hits;
    const total = typeof hits?.total === 'number' ? hits.total : hits?.total?.value;
    return { hits: hits?.hits ?? [], total };
  } catch (err) {
    if (isAbort(err, q.signal)) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    if (err instanceof errors.TimeoutError) throw new BackendError(name, `no answer within ${ctx.timeoutMs / 1000}s`, true);
    if (err instanceof errors.ResponseError) {
      const reason = (err.meta.body as { error?: { reason?: string; root_cause?: { reason?: string }[] } } | undefined)?.error;
      throw new BackendError(name, `HTTP ${err.statusCode}: ${reason?.root_cause?.[0]?.reason ?? reason?.reason ?? err.message}`.slice(0, 400));
    }
    throw new BackendError(name, (err as Error).message.slice(0, 300));
  } finally {
    q.signal.removeEventListener('abort', abort);
  }
}

/** The backend for `opensearch` or `elasticsearch` (the same protocol for searching). */
export function searchBackend(name: string): LogBackend {
  return {
    async *search(ctx, config, q) {
      const f = fieldsOf(config);
      let after = decodePage<Page>(name, q.page)?.after;
      const range = { gte: new Date(q.startMs).toISOString(), lte: new Date(q.endMs).toISOString() };
      let given = 0;
      let total: number | undefined;
      let full = false;
      while (given < q.limit) {
        const want = Math.min(q.limit - given, given === 0 ? ctx.firstBatch : ctx.batch);
        const res = await run(ctx, name, config, q, searchBody(config, q, range, 'desc', want, after, given === 0));
        total ??= res.total;
        if (res.hits.length) {
          given += res.hits.length;
          after = res.hits[res.hits.length - 1].sort;
          yield res.hits.map((h) => toLine(h, f));
        }
        full = res.hits.length === want && !!after;
        if (!full) break;
      }
      return { total: total ?? given, nextPage: full && after ? encodePage({ after } satisfies Page) : undefined };
    },

    async *follow(ctx, config, q, last) {
      const f = fieldsOf(config);
      let after: unknown[] | undefined;
      let from = last ? last.timestamp : new Date().toISOString();
      while (!q.signal.aborted) {
        await sleep(ctx.pollMs, q.signal);
        if (q.signal.aborted) return;
        const range: Record<string, string> = after ? { gte: from } : { gt: from };
        const res = await run(ctx, name, config, q, searchBody(config, q, range, 'asc', ctx.batch, after));
        if (!res.hits.length) continue;
        after = res.hits[res.hits.length - 1].sort;
        const lines = res.hits.map((h) => toLine(h, f));
        from = lines[lines.length - 1].timestamp;
        yield lines;
      }
    },
  };
}
