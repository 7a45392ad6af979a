import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LogCorpus, type CorpusLine } from './log-corpus.js';

/**
 * A protocol-faithful Loki for tests: `GET /loki/api/v1/query_range` (and `/loki/api/v1/labels`, `/ready`) over a
 * LogCorpus, with the LogQL subset a log search sends: a stream selector `{a="x", b!="y", c=~"re", d!~"re"}` (at
 * least one matcher that does not match empty, as Loki requires) and line filters `|= "s"`, `!= "s"`, `|~ "re"`,
 * `!~ "re"` (strings in double quotes or backticks; `(?i)` honoured). `start` inclusive and `end` exclusive (ns,
 * RFC 3339 or float seconds; defaults end = now, start = end - 1h), `limit` (default 100, at most `maxLimit` 5000 →
 * 400 as Loki's max_entries_limit_per_query), `direction` backward (default) or forward. The answer:
 * `{status:"success", data:{resultType:"streams", result:[{stream, values:[[ns, line]]}], stats}}`, values of a
 * stream in the asked direction. Errors are text/plain 400 (`parse error : …`), as Loki answers.
 *
 * Test hooks: `requests` (each query's params), `aborted` (requests the client dropped before the answer),
 * `delayMs`, `hold(from)` (answers to request number `from` and later wait until the returned release is called), `failWith(status, text)`,
 * `auth` (Basic credentials required → 401), `tenant` seen in `tenants`.
 */

export interface LokiServer {
  url: string;
  corpus: LogCorpus;
  requests: URLSearchParams[];
  tenants: (string | undefined)[];
  /** Requests closed by the client before they were answered. */
  aborted: number;
  delayMs: number;
  auth: { username: string; password: string } | null;
  /** Answers with this status and text until cleared (null). */
  failWith(status: number, text: string): void;
  /** Holds every answer from now until `release()` (requests still arrive and are recorded). */
  /** Holds the answers to requests number `from` (0-based) and later until the returned release is called. */
  hold(from?: number): () => void;
  close(): Promise<void>;
}

type Matcher = { name: string; op: '=' | '!=' | '=~' | '!~'; value: string; re?: RegExp };
type Filter = { op: '|=' | '!=' | '|~' | '!~'; value: string; re?: RegExp };

class ParseError extends Error {}

function goRegex(src: string, anchored: boolean): RegExp {
  let flags = '';
  let s = src;
  const m = /^\(\?([a-z]+)\)/.exec(s);
  if (m) {
    if (m[1].includes('i')) flags += 'i';
    if (m[1].includes('s')) flags += 's';
    s = s.slice(m[0].length);
  }
  try {
    return new RegExp(anchored ? `^(?:${s})$` : s, flags);
  } catch (err) {
    throw new ParseError(`error parsing regexp: ${(err as Error).message}`);
  }
}

/** Parses the LogQL subset: a stream selector and line filters. */
export function parseLogQL(q: string): { matchers: Matcher[]; filters: Filter[] } {
  let i = 0;
  const ws = () => { while (i < q.length && /\s/.test(q[i])) i++; };
  const str = (): string => {
    ws();
    const quote = q[i];
    if (quote === '`') {
      const end = q.indexOf('`', i + 1);
      if (end < 0) throw new ParseError('unterminated raw string');
      const v = q.slice(i + 1, end);
      i = end + 1;
      return v;
    }
    if (quote !== '"') throw new ParseError(`syntax error: unexpected ${q.slice(i, i + 10) || 'end of input'}, expecting STRING`);
    let j = i + 1;
    while (j < q.length && q[j] !== '"') j += q[j] === '\\' ? 2 : 1;
    if (j >= q.length) throw new ParseError('unterminated string');
    const v = JSON.parse(q.slice(i, j + 1)) as string;
    i = j + 1;
    return v;
  };
  ws();
  if (q[i] !== '{') throw new ParseError('syntax error: unexpected input, expecting {');
  i++;
  const matchers: Matcher[] = [];
  for (;;) {
    ws();
    if (q[i] === '}') { i++; break; }
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(q.slice(i))?.[0];
    if (!name) throw new ParseError(`syntax error: unexpected ${q[i] ?? 'end of input'}, expecting IDENTIFIER`);
    i += name.length;
    ws();
    const op = (['=~', '!~', '!=', '='] as const).find((o) => q.startsWith(o, i));
    if (!op) throw new ParseError('syntax error: expecting = != =~ !~');
    i += op.length;
    const value = str();
    matchers.push({ name, op, value, re: op === '=~' || op === '!~' ? goRegex(value, true) : undefined });
    ws();
    if (q[i] === ',') i++;
    else if (q[i] !== '}') throw new ParseError(`syntax error: unexpected ${q[i] ?? 'end of input'}, expecting } or ,`);
  }
  if (!matchers.some((m) => !matches(m, ''))) {
    throw new ParseError('queries require at least one regexp or equality matcher that does not have an empty-compatible value. For instance, app=~".*" does not meet this requirement, but app=~".+" will');
  }
  const filters: Filter[] = [];
  for (;;) {
    ws();
    if (i >= q.length) break;
    const op = (['|=', '!=', '|~', '!~'] as const).find((o) => q.startsWith(o, i));
    if (!op) throw new ParseError(`syntax error: unexpected ${q.slice(i, i + 10)}`);
    i += 2;
    const value = str();
    filters.push({ op, value, re: op === '|~' || op === '!~' ? goRegex(value, false) : undefined });
  }
  return { matchers, filters };
}

function matches(m: Matcher, v: string): boolean {
  switch (m.op) {
    case '=': return v === m.value;
    case '!=': return v !== m.value;
    case '=~': return m.re!.test(v);
    case '!~': return !m.re!.test(v);
  }
}

function passes(f: Filter, line: string): boolean {
  switch (f.op) {
    case '|=': return line.includes(f.value);
    case '!=': return !line.includes(f.value);
    case '|~': return f.re!.test(line);
    case '!~': return !f.re!.test(line);
  }
}

/** A Loki time parameter: integer ns, float seconds, or RFC 3339. */
function parseTime(v: string | null, fallback: bigint): bigint {
  if (v === null || v === '') return fallback;
  if (/^\d+$/.test(v)) return v.length > 12 ? BigInt(v) : BigInt(v) * 1_000_000_000n;
  if (/^\d+\.\d+$/.test(v)) return BigInt(Math.round(Number(v) * 1e6)) * 1000n;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) throw new ParseError(`cannot parse "${v}" to a valid timestamp`);
  return BigInt(ms) * 1_000_000n;
}

export async function startLokiServer(opts: { maxLimit?: number } = {}): Promise<LokiServer> {
  const maxLimit = opts.maxLimit ?? 5000;
  const corpus = new LogCorpus();
  let failure: { status: number; text: string } | null = null;
  let gate: { from: number; wait: Promise<void> } | null = null;
  const sockets = new Set<import('node:net').Socket>();

  const state: LokiServer = {
    url: '', corpus, requests: [], tenants: [], aborted: 0, delayMs: 0, auth: null,
    failWith(status, text) { failure = status ? { status, text } : null; },
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

  const server = http.createServer(async (req, res) => {
    let answered = false;
    res.on('close', () => { if (!answered) state.aborted++; });
    const send = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      answered = true;
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/ready') return send(200, 'ready');
    if (state.auth) {
      const want = `Basic ${Buffer.from(`${state.auth.username}:${state.auth.password}`).toString('base64')}`;
      if (req.headers.authorization !== want) return send(401, 'Unauthorized');
    }
    if (url.pathname !== '/loki/api/v1/query_range') return send(404, '404 page not found');
    state.requests.push(url.searchParams);
    state.tenants.push(req.headers['x-scope-orgid'] as string | undefined);
    if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
    if (gate && state.requests.length > gate.from) await gate.wait;
    if (res.destroyed) return;
    if (failure) return send(failure.status, failure.text);
    try {
      const p = url.searchParams;
      const { matchers, filters } = parseLogQL(p.get('query') ?? '');
      const end = parseTime(p.get('end'), BigInt(Date.now()) * 1_000_000n);
      const start = parseTime(p.get('start'), end - 3_600_000_000_000n);
      const limit = p.has('limit') ? Number(p.get('limit')) : 100;
      if (!Number.isInteger(limit) || limit <= 0) throw new ParseError('limit must be a positive value');
      if (limit > maxLimit) throw new ParseError(`max entries limit per query exceeded, limit > max_entries_limit (${limit} > ${maxLimit})`);
      const direction = (p.get('direction') ?? 'backward').toLowerCase();
      if (direction !== 'backward' && direction !== 'forward') throw new ParseError(`invalid direction ${direction}`);
      if (end < start) throw new ParseError('end timestamp must not be before or equal to start time');
      const picked: CorpusLine[] = [];
      const lines = direction === 'backward' ? corpus.descending(start, end) : corpus.ascending(start, end);
      for (const l of lines) {
        if (!matchers.every((m) => matches(m, l.labels[m.name] ?? ''))) continue;
        if (!filters.every((f) => passes(f, l.text))) continue;
        picked.push(l);
        if (picked.length >= limit) break;
      }
      const streams = new Map<string, { stream: Record<string, string>; values: [string, string][] }>();
      for (const l of picked) {
        const key = JSON.stringify(Object.entries(l.labels).sort());
        let s = streams.get(key);
        if (!s) streams.set(key, (s = { stream: l.labels, values: [] }));
        s.values.push([l.ns.toString(), l.text]);
      }
      const body = {
        status: 'success',
        data: { resultType: 'streams', result: [...streams.values()], stats: { summary: { totalLinesProcessed: picked.length } } },
      };
      send(200, JSON.stringify(body), 'application/json');
    } catch (err) {
      if (err instanceof ParseError) return send(400, `parse error : ${err.message}`);
      send(500, String(err));
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
