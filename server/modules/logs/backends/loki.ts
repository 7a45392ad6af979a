import type { LogLine } from '../../../contracts/logs.js';
import { guessSeverity, normaliseSeverity } from '../severity.js';
import { basicAuth, BackendError, decodePage, encodePage, fetchJson, sleep, type BackendContext, type BackendQuery, type LogBackend } from '../types.js';

/**
 * `loki`: GET {url}/loki/api/v1/query_range with LogQL: the labels as the stream selector, the text as `|= "…"`
 * (or `|~ "…"` for a regular expression), direction backward, paged by `end` (exclusive, as Loki treats it) = the
 * oldest line's nanosecond time. Asked in batches (a small first one, so the first lines stream at once).
 */

const NAME = 'loki';
interface Page { end: string }
interface Stream { stream?: Record<string, string>; values?: [string, string, ...unknown[]][] }
interface Entry { ns: bigint; line: LogLine }

const quote = (s: string) => JSON.stringify(s);
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** The LogQL query of a search. */
export function logql(q: BackendQuery): string {
  const matchers = Object.entries(q.labels).filter(([k, v]) => LABEL_NAME.test(k) && v !== '').map(([k, v]) => {
    // `a,b` is any of, `x*` a glob, `!x` not x (the route label conventions)
    if (v.startsWith('!')) return `${k}!=${quote(v.slice(1))}`;
    if (v.includes(',') || v.includes('*')) {
      const alts = v.split(',').map((s) => s.trim().replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*'));
      return `${k}=~${quote(alts.join('|'))}`;
    }
    return `${k}=${quote(v)}`;
  });
  if (!matchers.length) throw new BackendError(NAME, 'the log selector has no labels to make a stream selector of');
  let out = `{${matchers.join(',')}}`;
  if (q.text) out += q.text.regex ? ` |~ ${quote(q.text.source)}` : ` |= ${quote(q.text.source)}`;
  return out;
}

const msToNs = (ms: number) => BigInt(Math.trunc(ms)) * 1_000_000n;

function toEntries(body: unknown): Entry[] {
  const data = (body as { data?: { resultType?: string; result?: Stream[] } }).data;
  if (!data || data.resultType !== 'streams' || !Array.isArray(data.result)) throw new BackendError(NAME, 'unexpected answer (not streams)');
  const out: Entry[] = [];
  for (const s of data.result) {
    const labels = s.stream ?? {};
    const sev = normaliseSeverity(labels.level ?? labels.severity ?? labels.detected_level);
    for (const [ts, text] of s.values ?? []) {
      const ns = BigInt(ts);
      const severity = sev ?? guessSeverity(text);
      out.push({ ns, line: { timestamp: new Date(Number(ns / 1_000_000n)).toISOString(), message: text, labels, ...(severity ? { severity } : {}) } });
    }
  }
  return out;
}

async function queryRange(ctx: BackendContext, config: Record<string, unknown>, q: BackendQuery, params: Record<string, string>): Promise<Entry[]> {
  const base = String(config.url ?? config.address ?? '').replace(/\/+$/, '');
  if (!base) throw new BackendError(NAME, 'url is required');
  const url = `${base}/loki/api/v1/query_range?${new URLSearchParams({ query: logql(q), ...params })}`;
  const headers: Record<string, string> = { accept: 'application/json', ...basicAuth(config) };
  if (typeof config.tenant === 'string' && config.tenant) headers['x-scope-orgid'] = config.tenant;
  return toEntries(await fetchJson(NAME, url, { headers, signal: q.signal, timeoutMs: ctx.timeoutMs }));
}

export const lokiBackend: LogBackend = {
  async *search(ctx, config, q) {
    const page = decodePage<Page>(NAME, q.page);
    let end = page ? BigInt(page.end) : msToNs(q.endMs) + 1n;
    const start = msToNs(q.startMs);
    let given = 0;
    let full = false;
    while (given < q.limit) {
      const want = Math.min(q.limit - given, given === 0 ? ctx.firstBatch : ctx.batch);
      const entries = await queryRange(ctx, config, q, { direction: 'backward', limit: String(want), start: String(start), end: String(end) });
      entries.sort((a, b) => (a.ns < b.ns ? 1 : a.ns > b.ns ? -1 : 0));
      const lines = entries.slice(0, want);
      if (lines.length) {
        given += lines.length;
        end = lines[lines.length - 1].ns;
        yield lines.map((e) => e.line);
      }
      full = lines.length === want;
      if (!full) break;
    }
    return { total: given, nextPage: full && given > 0 ? encodePage({ end: end.toString() } satisfies Page) : undefined };
  },

  async *follow(ctx, config, q, after) {
    // from the ms after the newest line given (times reach clients in ms; Loki's start is inclusive), polled every pollMs
    let from = after ? msToNs(Date.parse(after.timestamp) + 1) : msToNs(Date.now());
    const seen = new Set<string>();
    while (!q.signal.aborted) {
      await sleep(ctx.pollMs, q.signal);
      if (q.signal.aborted) return;
      const now = msToNs(Date.now()) + 1n;
      const entries = await queryRange(ctx, config, q, { direction: 'forward', limit: String(ctx.batch), start: String(from), end: String(now) });
      entries.sort((a, b) => (a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0));
      const fresh = entries.filter((e) => !seen.has(`${e.ns}\u0000${e.line.message}`));
      if (!fresh.length) continue;
      const top = fresh[fresh.length - 1].ns;
      seen.clear();
      for (const e of fresh) if (e.ns === top) seen.add(`${e.ns}\u0000${e.line.message}`);
      // start again at the newest ns (inclusive) so lines sharing it that arrive later are not lost; seen skips repeats
      from = top;
      yield fresh.map((e) => e.line);
    }
  },
};
