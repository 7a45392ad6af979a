import type { HttpPagination } from '../../../contracts/catalog.js';
import { evalCel } from '../../../lib/cel.js';
import { celToNative } from '../../../lib/cel-funcs.js';
import { parseGoDuration } from '../../health/schedule.js';
import { fetchLimited, HttpStatusError, MAX_RESPONSE_BYTES, responseDocuments, type FetchedText } from './http.js';

/**
 * config-db's http `pagination`: after each page `nextPageExpr` is evaluated (CEL) over `response` {body, headers,
 * status, url} and names the next request (a URL, or {url, method, body, headers}; null or "" ends). The pages are
 * merged by `reduceExpr` (CEL over `acc` and `page`, returning the new list), or by default a page that is a list, or
 * has a `value`/`items`/`Items` list, adds its elements and any other page adds itself; with `perPage` each page is a
 * document of its own. A page answered 429 is asked again up to 3 times (after Retry-After), as the reference does.
 * Bounds the reference does not have: at most 100 pages unless `maxPages` says (≤ 1000), 32 MiB
 * for all pages together, and the block's headers (credentials) go only to the first URL's origin.
 */

/** Pages read when `maxPages` is 0 or unset (the reference reads without end). */
export const DEFAULT_MAX_PAGES = 100;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

interface PageRequest {
  url: string;
  method: string;
  body?: string;
  headers: Record<string, string>;
}

/** The next request `nextPageExpr` names after `page` (relative URLs against the page's), or null at the end. */
function nextRequest(expr: string, page: FetchedText, body: unknown): PageRequest | null {
  const response = { body, headers: Object.fromEntries(page.headers), status: page.status, url: page.url };
  let out: unknown;
  try {
    out = celToNative(evalCel(expr, { response }));
  } catch (err) {
    throw new Error(`pagination.nextPageExpr: ${(err as Error).message}`);
  }
  const spec = isObj(out) ? out : { url: out };
  if (spec.url === null || spec.url === undefined || spec.url === '') return null;
  let url: URL;
  try {
    url = new URL(String(spec.url), page.url);
  } catch {
    throw new Error(`pagination.nextPageExpr: "${String(spec.url).slice(0, 80)}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`pagination.nextPageExpr: ${url.protocol} URLs are not fetched`);
  const headers = isObj(spec.headers) ? Object.fromEntries(Object.entries(spec.headers).map(([k, v]) => [k, String(v)])) : {};
  return {
    url: url.toString(),
    method: typeof spec.method === 'string' && spec.method ? spec.method.toUpperCase() : 'GET',
    body: typeof spec.body === 'string' && spec.body ? spec.body : undefined,
    headers,
  };
}

function reduce(pagination: HttpPagination, acc: unknown[], page: unknown): unknown[] {
  if (pagination.reduceExpr) {
    let out: unknown;
    try {
      out = celToNative(evalCel(pagination.reduceExpr, { acc, page }));
    } catch (err) {
      throw new Error(`pagination.reduceExpr: ${(err as Error).message}`);
    }
    if (!Array.isArray(out)) throw new Error(`pagination.reduceExpr must return a list, not ${out === null ? 'null' : typeof out}`);
    return out;
  }
  if (Array.isArray(page)) return [...acc, ...page];
  if (isObj(page)) {
    for (const key of ['value', 'items', 'Items']) if (Array.isArray(page[key])) return [...acc, ...(page[key] as unknown[])];
  }
  return [...acc, page];
}

/** Retries of a page answered 429, as the reference makes them: after Retry-After, or 1, 2, 4 s. */
const RETRIES_ON_429 = 3;
/** The longest Retry-After waited for (the run's timeout ends any wait sooner). */
const MAX_RETRY_AFTER_MS = 60_000;

function retryDelay(retryAfter: string | null, attempt: number): number {
  const seconds = Number(retryAfter);
  if (retryAfter && Number.isFinite(seconds)) return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, seconds * 1000));
  const at = retryAfter ? Date.parse(retryAfter) : NaN;
  if (!Number.isNaN(at)) return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, at - Date.now()));
  return 1000 * 2 ** attempt;
}

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const t = setTimeout(done, ms);
  function done() {
    clearTimeout(t);
    signal.removeEventListener('abort', done);
    resolve();
  }
  signal.addEventListener('abort', done);
});

/**
 * Reads the pages after `first` (already parsed into `firstDocs`). Returns the documents for extract.ts, the pages
 * read, and whether maxPages stopped it with a next page still named (then the run must not delete anything).
 */
export async function paginate(
  pagination: HttpPagination, first: FetchedText, firstDocs: unknown[],
  opts: { headers: Headers; signal: AbortSignal; format?: string },
): Promise<{ docs: unknown[]; pages: number; truncated: boolean }> {
  const max = pagination.maxPages || DEFAULT_MAX_PAGES;
  const delay = pagination.delay ? parseGoDuration(pagination.delay) : 0;
  const origin = new URL(first.url).origin;
  // a multi-document YAML page is its documents; the expressions see a page as one value
  const bodyOf = (docs: unknown[]) => (docs.length === 1 ? docs[0] : docs);
  const bodies = [bodyOf(firstDocs)];
  let page = first;
  let used = Buffer.byteLength(first.text);
  let truncated = false;
  for (;;) {
    const next = nextRequest(pagination.nextPageExpr, page, bodies[bodies.length - 1]);
    if (!next) break;
    if (bodies.length >= max) {
      truncated = true;
      break;
    }
    if (opts.signal.aborted) throw new Error(`timed out after ${bodies.length} pages`);
    if (delay > 0) await sleep(delay, opts.signal);
    const headers = new Headers(new URL(next.url).origin === origin ? opts.headers : { accept: opts.headers.get('accept') ?? '*/*' });
    for (const [k, v] of Object.entries(next.headers)) headers.set(k, v);
    const n = bodies.length + 1;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          page = await fetchLimited(next.url, { method: next.method, headers, body: next.body, signal: opts.signal }, MAX_RESPONSE_BYTES - used);
          break;
        } catch (err) {
          if (!(err instanceof HttpStatusError) || err.status !== 429 || attempt >= RETRIES_ON_429 || opts.signal.aborted) throw err;
          await sleep(retryDelay(err.retryAfter, attempt), opts.signal);
        }
      }
      used += Buffer.byteLength(page.text);
      bodies.push(bodyOf(responseDocuments(page.text, opts.format)));
    } catch (err) {
      throw new Error(`page ${n}: ${(err as Error).message}`);
    }
  }
  if (pagination.perPage) return { docs: bodies, pages: bodies.length, truncated };
  let acc: unknown[] = [];
  for (const b of bodies) acc = reduce(pagination, acc, b);
  return { docs: [acc], pages: bodies.length, truncated };
}
