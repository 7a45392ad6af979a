import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LogCorpus, type CorpusLine } from './log-corpus.js';

/**
 * A protocol-faithful OpenSearch `_search` for tests, over a LogCorpus whose lines are documents
 * `{"@timestamp": <ISO ms>, message: <text>, ...labels}` (the timestamp field's name is `timestampField`).
 * `GET|POST /{index}/_search` (index names or globs, comma-separated, `_all`; unknown → 404
 * index_not_found_exception) with a JSON body: `size` (default 10; from + size ≤ 10,000), `from`, `sort`
 * (the timestamp field asc/desc, then `_id` as a tiebreaker, `_doc`), `search_after` (one value per sort key),
 * `track_total_hits` (true = exact; a number, default 10,000, counts up to it, relation gte beyond; false: no total), and queries `match_all`, `bool` (filter, must, should + minimum_should_match, must_not), `range`
 * (gte/gt/lte/lt, ISO or epoch ms, `now-15m`), `term`, `match`, `match_phrase`, `regexp`, `query_string`
 * (`"phrase"`, `/regex/`, `field:value`, bare words; default_operator OR/AND) on lower-cased word tokens, as the
 * standard analyzer sees text. A range on the timestamp in the top-level filter narrows the scan by binary search.
 * Errors are OpenSearch's `{error:{root_cause, type, reason}, status}`.
 *
 * Test hooks: `requests` (bodies), `aborted`, `delayMs`, `hold(from)`, `failWith(status, type, reason)`, `auth`.
 */

export interface OpenSearchServer {
  url: string;
  corpus: LogCorpus;
  indices: string[];
  timestampField: string;
  requests: { index: string; body: Record<string, unknown> }[];
  aborted: number;
  delayMs: number;
  auth: { username: string; password: string } | null;
  failWith(status: number, type?: string, reason?: string): void;
  /** Holds the answers to requests number `from` (0-based) and later until the returned release is called. */
  hold(from?: number): () => void;
  close(): Promise<void>;
}

type Doc = Record<string, unknown>;
type Q = Record<string, unknown>;

class BadQuery extends Error {
  constructor(readonly type: string, reason: string, readonly status = 400) {
    super(reason);
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const tokens = (v: unknown): string[] => String(v ?? '').toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter(Boolean);

function field(doc: Doc, path: string): unknown {
  if (path in doc) return doc[path];
  let cur: unknown = doc;
  for (const p of path.split('.')) cur = isObj(cur) ? cur[p] : undefined;
  return cur;
}

function phraseIn(hay: string[], phrase: string[]): boolean {
  if (!phrase.length) return true;
  outer: for (let i = 0; i + phrase.length <= hay.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (hay[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}

function dateMs(v: unknown, now: number): number {
  if (typeof v === 'number') return v;
  const s = String(v);
  const m = /^now(?:-(\d+)([smhdw]))?$/.exec(s);
  if (m) return now - (m[1] ? Number(m[1]) * { s: 1e3, m: 6e4, h: 36e5, d: 864e5, w: 6048e5 }[m[2] as 's']! : 0);
  if (/^\d+$/.test(s)) return Number(s);
  const t = Date.parse(s);
  if (Number.isNaN(t)) throw new BadQuery('parse_exception', `failed to parse date field [${s}]`);
  return t;
}

/** query_string subset: terms separated by spaces (quotes and /…/ kept whole), combined by default_operator. */
function queryString(q: Q, doc: Doc): boolean {
  const text = String(q.query ?? '');
  const def = typeof q.default_field === 'string' ? q.default_field : 'message';
  const and = String(q.default_operator ?? 'OR').toUpperCase() === 'AND';
  const parts = text.match(/(?:[\w.@]+:)?(?:"(?:[^"\\]|\\.)*"|\/(?:[^/\\]|\\.)+\/|\S+)/g) ?? [];
  if (!parts.length) return true;
  const results = parts.filter((p) => p !== 'OR' && p !== 'AND').map((p) => {
    const fm = /^([\w.@]+):(.+)$/.exec(p);
    const f = fm && !p.startsWith('"') && !p.startsWith('/') ? fm[1] : def;
    const v = fm && !p.startsWith('"') && !p.startsWith('/') ? fm[2] : p;
    const hay = tokens(field(doc, f));
    if (v.startsWith('"')) return phraseIn(hay, tokens(JSON.parse(v) as string));
    if (v.startsWith('/') && v.endsWith('/') && v.length > 2) {
      let re: RegExp;
      try {
        re = new RegExp(`^(?:${v.slice(1, -1)})$`);
      } catch (err) {
        throw new BadQuery('query_shard_exception', `Failed to parse query [${text}]: ${(err as Error).message}`);
      }
      return hay.some((t) => re.test(t));
    }
    const want = tokens(v);
    return want.some((t) => hay.includes(t));
  });
  return and ? results.every(Boolean) : results.some(Boolean);
}

/** `windowed`: the timestamp field whose top-level ranges the scan window already enforces (skipped here: cheaper). */
function evalQuery(q: unknown, doc: Doc, now: number, windowed?: string): boolean {
  if (!isObj(q)) throw new BadQuery('parsing_exception', 'query malformed, must start with start_object');
  const [type, body] = Object.entries(q)[0] ?? [];
  if (!type) return true;
  const b = body as Q;
  switch (type) {
    case 'match_all': return true;
    case 'bool': {
      const list = (v: unknown) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
      const must = [...list(b.filter), ...list(b.must)];
      // only a direct range child is one the window enforced
      if (!must.every((x) => evalQuery(x, doc, now, isObj(x) && isObj(x.range) ? windowed : undefined))) return false;
      if (list(b.must_not).some((x) => evalQuery(x, doc, now))) return false;
      const should = list(b.should);
      const msm = b.minimum_should_match !== undefined ? Number(b.minimum_should_match) : must.length ? 0 : should.length ? 1 : 0;
      return should.filter((x) => evalQuery(x, doc, now)).length >= msm;
    }
    case 'range': {
      const [f, r] = Object.entries(b)[0] as [string, Q];
      if (f === windowed) return true;
      const v = field(doc, f);
      if (v === undefined) return false;
      const x = typeof v === 'number' ? v : dateMs(v, now);
      if (r.gte !== undefined && !(x >= dateMs(r.gte, now))) return false;
      if (r.gt !== undefined && !(x > dateMs(r.gt, now))) return false;
      if (r.lte !== undefined && !(x <= dateMs(r.lte, now))) return false;
      if (r.lt !== undefined && !(x < dateMs(r.lt, now))) return false;
      return true;
    }
    case 'term': {
      const [f, v] = Object.entries(b)[0];
      const want = isObj(v) ? v.value : v;
      return String(field(doc, f)) === String(want);
    }
    case 'match': {
      const [f, v] = Object.entries(b)[0];
      const want = tokens(isObj(v) ? v.query : v);
      const hay = tokens(field(doc, f));
      return want.some((t) => hay.includes(t));
    }
    case 'match_phrase': {
      const [f, v] = Object.entries(b)[0];
      return phraseIn(tokens(field(doc, f)), tokens(isObj(v) ? v.query : v));
    }
    case 'regexp': {
      const [f, v] = Object.entries(b)[0];
      const re = new RegExp(`^(?:${String(isObj(v) ? v.value : v)})$`);
      return tokens(field(doc, f)).some((t) => re.test(t));
    }
    case 'query_string': return queryString(b, doc);
    default: throw new BadQuery('parsing_exception', `unknown query [${type}]`);
  }
}

/** The ns window [from, to) a top-level timestamp range allows. */
function window(query: unknown, ts: string, now: number): { from: bigint; to: bigint } {
  let from = 0n;
  let to = BigInt(Number.MAX_SAFE_INTEGER) * 1_000_000n;
  const ranges: Q[] = [];
  if (isObj(query) && isObj(query.range)) ranges.push(query.range);
  if (isObj(query) && isObj(query.bool)) {
    for (const k of ['filter', 'must']) {
      const l = query.bool[k];
      for (const x of Array.isArray(l) ? l : l ? [l] : []) if (isObj(x) && isObj(x.range)) ranges.push(x.range);
    }
  }
  for (const r of ranges) {
    const b = r[ts];
    if (!isObj(b)) continue;
    const ns = (v: unknown) => BigInt(Math.trunc(dateMs(v, now))) * 1_000_000n;
    if (b.gte !== undefined) from = ns(b.gte) > from ? ns(b.gte) : from;
    if (b.gt !== undefined) from = ns(b.gt) + 1_000_000n > from ? ns(b.gt) + 1_000_000n : from;
    if (b.lte !== undefined) to = ns(b.lte) + 1_000_000n < to ? ns(b.lte) + 1_000_000n : to;
    if (b.lt !== undefined) to = ns(b.lt) < to ? ns(b.lt) : to;
  }
  return { from, to };
}

/**
 * The label filters of a query that looks at nothing but labels and the time (a bool of filter/must holding match_phrase,
 * term or match on fields other than the message and the timestamp, and ranges on the timestamp), else null.
 */
function labelFilters(query: unknown, ts: string): Q[] | null {
  if (!isObj(query)) return null;
  if (isObj(query.match_all)) return [];
  if (!isObj(query.bool)) return null;
  const out: Q[] = [];
  for (const [k, v] of Object.entries(query.bool)) {
    if (k !== 'filter' && k !== 'must') return null;
    for (const x of Array.isArray(v) ? v : [v]) {
      if (!isObj(x)) return null;
      const [type, b] = Object.entries(x)[0] ?? [];
      if (type === 'range' && isObj(b) && Object.keys(b).length === 1 && ts in b) continue;
      if ((type === 'match_phrase' || type === 'term' || type === 'match') && isObj(b)) {
        const f = Object.keys(b)[0];
        if (f === 'message' || f === ts) return null;
        out.push(x);
        continue;
      }
      return null;
    }
  }
  return out;
}

const globMatch = (pattern: string, name: string) => new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(name);

export async function startOpenSearchServer(opts: { indices?: string[]; timestampField?: string } = {}): Promise<OpenSearchServer> {
  const corpus = new LogCorpus();
  let failure: { status: number; type: string; reason: string } | null = null;
  let gate: { from: number; wait: Promise<void> } | null = null;
  const sockets = new Set<import('node:net').Socket>();
  const state: OpenSearchServer = {
    url: '', corpus, indices: opts.indices ?? ['logs'], timestampField: opts.timestampField ?? '@timestamp',
    requests: [], aborted: 0, delayMs: 0, auth: null,
    failWith(status, type = 'exception', reason = 'failure') { failure = status ? { status, type, reason } : null; },
    hold(from = 0) {
      let release!: () => void;
      gate = { from, wait: new Promise<void>((r) => { release = r; }) };
      return () => { gate = null; release(); };
    },
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
  const docOf = (l: CorpusLine): Doc => {
    const ms = Number(l.ns / 1_000_000n);
    return { [state.timestampField]: new Date(ms).toISOString(), message: l.text, ...l.labels };
  };

  function search(index: string, body: Record<string, unknown>) {
    const names = index.split(',');
    for (const n of names) {
      if (n === '_all' || n.includes('*')) continue;
      if (!state.indices.includes(n)) throw new BadQuery('index_not_found_exception', `no such index [${n}]`, 404);
    }
    if (!names.some((n) => n === '_all' || state.indices.some((i) => globMatch(n, i)))) {
      return { total: 0, hits: [] as unknown[] };
    }
    const now = Date.now();
    const size = body.size === undefined ? 10 : Number(body.size);
    const from = body.from === undefined ? 0 : Number(body.from);
    if (from + size > 10_000) throw new BadQuery('illegal_argument_exception', `Result window is too large, from + size must be less than or equal to: [10000] but was [${from + size}]`);
    const ts = state.timestampField;
    const sortList = (Array.isArray(body.sort) ? body.sort : body.sort ? [body.sort] : []) as unknown[];
    // the sort keys: the timestamp (ms), then optionally `_id` (keyword order) as a tiebreaker
    const keys: { f: string; dir: 'asc' | 'desc' }[] = [];
    for (const s of sortList) {
      const [f, o] = typeof s === 'string' ? [s, 'asc'] : Object.entries(s as Q)[0];
      const dir = String(isObj(o) ? o.order ?? 'asc' : o) === 'desc' ? 'desc' : 'asc';
      if (f === ts || f === '_id') keys.push({ f, dir });
      else if (f !== '_doc' && f !== '_score') throw new BadQuery('illegal_argument_exception', `No mapping found for [${f}] in order to sort on`);
    }
    const tsKey = keys.findIndex((k) => k.f === ts);
    const idKey = keys.findIndex((k) => k.f === '_id');
    if (keys.length && tsKey !== 0) throw new BadQuery('illegal_argument_exception', 'this test server sorts on the timestamp field first');
    const order: 'asc' | 'desc' | null = tsKey === 0 ? keys[0].dir : null;
    const idDir = idKey > 0 ? keys[idKey].dir : null;
    const after = Array.isArray(body.search_after) ? body.search_after : null;
    if (after && !order) throw new BadQuery('illegal_argument_exception', 'search_after needs a sort on the timestamp field');
    if (after && after.length !== keys.length) {
      throw new BadQuery('illegal_argument_exception', `search_after has ${after.length} value(s) but sort has ${keys.length}.`);
    }
    const afterMs = after ? dateMs(after[0], now) : null;
    const afterId = after && idDir ? String(after[idKey]) : null;
    const query = body.query ?? { match_all: {} };
    const w = window(query, ts, now);
    // track_total_hits: true counts exactly; a number (default 10,000) counts up to it ("gte" beyond); false counts nothing
    // and answers no hits.total (as OpenSearch does)
    const track = body.track_total_hits;
    const exact = track === true;
    const counting = track !== false;
    const cap = typeof track === 'number' ? track : 10_000;
    // not counting, the hits after search_after are all that is needed: the scan starts there (the engine's sorted
    // index does the same)
    if (afterMs !== null && !counting) {
      const at = BigInt(Math.trunc(afterMs)) * 1_000_000n;
      if (order === 'desc') w.to = at + 1_000_000n < w.to ? at + 1_000_000n : w.to;
      else w.from = at > w.from ? at : w.from;
    }
    // an exact total of a query on labels and time only is counted without reading the lines (same number, no scan)
    const labelOnly = labelFilters(query, ts);
    let total = exact && labelOnly ? state.corpus.countByLabels(w.from, w.to, (labels) => labelOnly.every((f) => evalQuery(f, labels, now))) : 0;
    const counted = exact && labelOnly !== null;
    const hits: unknown[] = [];
    let skipped = 0;
    const isAfter = (ms: number, id: string) => {
      if (afterMs === null) return true;
      if (ms !== afterMs) return order === 'desc' ? ms < afterMs : ms > afterMs;
      if (afterId === null) return false;
      return idDir === 'desc' ? id < afterId : id > afterId;
    };
    const it = order === 'desc' ? corpus.descending(w.from, w.to) : corpus.ascending(w.from, w.to);
    // lines of one millisecond are taken together, ordered by _id when it is a sort key
    let group: CorpusLine[] = [];
    let groupMs = NaN;
    let done = false;
    const take = (l: CorpusLine): void => {
      const doc = docOf(l);
      const ms = Number(l.ns / 1_000_000n);
      if (!evalQuery(query, doc, now, ts)) return;
      if (counting && !counted) total++;
      const id = l.id ?? l.ns.toString(36);
      if (!isAfter(ms, id)) return;
      if (hits.length < size) {
        if (skipped < from) skipped++;
        else hits.push({ _index: state.indices[0], _id: id, _score: null, _source: doc, ...(order ? { sort: idDir ? [ms, id] : [ms] } : {}) });
      } else if (!counting || counted) done = true;
      else if (!exact && total >= cap) done = true;
    };
    const flush = () => {
      if (idDir) group.sort((a, b) => { const x = a.id ?? ''; const y = b.id ?? ''; return (x < y ? -1 : x > y ? 1 : 0) * (idDir === 'desc' ? -1 : 1); });
      for (const l of group) if (!done) take(l);
      group = [];
    };
    for (const l of it) {
      const ms = Number(l.ns / 1_000_000n);
      if (ms !== groupMs) {
        flush();
        if (done) break;
        groupMs = ms;
      }
      group.push(l);
    }
    if (!done) flush();
    return { total: counting ? total : undefined, hits, relation: !exact && total >= cap ? 'gte' : 'eq' };
  }

  const server = http.createServer((req, res) => {
    let answered = false;
    res.on('close', () => { if (!answered) state.aborted++; });
    const send = (status: number, body: unknown) => {
      answered = true;
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (state.auth) {
        const want = `Basic ${Buffer.from(`${state.auth.username}:${state.auth.password}`).toString('base64')}`;
        if (req.headers.authorization !== want) {
          return send(401, { error: { root_cause: [{ type: 'security_exception', reason: 'missing authentication credentials' }], type: 'security_exception', reason: 'missing authentication credentials' }, status: 401 });
        }
      }
      if (url.pathname === '/') return send(200, { name: 'test', version: { distribution: 'opensearch', number: '2.17.0' }, tagline: 'The OpenSearch Project: https://opensearch.org/' });
      const m = /^\/([^/]+)\/_search$/.exec(url.pathname);
      if (!m || (req.method !== 'GET' && req.method !== 'POST')) return send(404, { error: 'no handler found', status: 404 });
      let body: Record<string, unknown>;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown> : {};
      } catch {
        return send(400, { error: { root_cause: [{ type: 'parse_exception', reason: 'request body is required' }], type: 'parse_exception', reason: 'not JSON' }, status: 400 });
      }
      const index = decodeURIComponent(m[1]);
      state.requests.push({ index, body });
      if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
      if (gate && state.requests.length > gate.from) await gate.wait;
      if (res.destroyed) return;
      if (failure) return send(failure.status, { error: { root_cause: [{ type: failure.type, reason: failure.reason }], type: failure.type, reason: failure.reason }, status: failure.status });
      const t0 = Date.now();
      try {
        const r = search(index, body);
        send(200, {
          took: Date.now() - t0, timed_out: false, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
          hits: { ...(r.total !== undefined ? { total: { value: r.total, relation: r.relation ?? 'eq' } } : {}), max_score: null, hits: r.hits },
        });
      } catch (err) {
        if (err instanceof BadQuery) {
          return send(err.status, { error: { root_cause: [{ type: err.type, reason: err.message }], type: err.type, reason: err.message }, status: err.status });
        }
        send(500, { error: { type: 'exception', reason: String(err) }, status: 500 });
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
