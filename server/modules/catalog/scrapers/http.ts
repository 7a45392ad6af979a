import { fillPlaceholders } from '../../../lib/connection-hydrate.js';
import { HttpScraper } from '../../../contracts/catalog.js';
import { extractDocuments } from '../extract.js';
import { emptyResult, type ScrapeContext, type ScrapeResult, type ScraperType } from '../types.js';
import { parseDocuments } from './file.js';
import { masked, safeUrl, withConnection, withValues } from './connection.js';
import { paginate } from './http-pagination.js';

/**
 * `spec.http[]`: one request (`url`, or the url and credentials of `connection://`), `method` (GET), `headers` and
 * `body`; `env` EnvVars (static or valueFrom a Secret/ConfigMap) fill `$(name)` in the url, headers and body. The
 * response (JSON, or YAML) is one document for extract.ts; with `pagination`, the pages' (http-pagination.ts). Not 2xx,
 * unreachable, slower than the run's timeout or not JSON: an error, and a partial run. Secrets never reach an error: they are masked, and URLs lose userinfo and
 * query.
 */

/** A response larger than this is refused. */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

type Obj = Record<string, unknown>;
const valueOf = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as Obj).value === 'string') return (v as Obj).value as string;
  return undefined;
};

const tooLarge = (limit: number) => new Error(`response larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB${limit < MAX_RESPONSE_BYTES ? ' (all pages together)' : ''}`);

async function readLimited(res: Response, signal: AbortSignal, limit: number): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > limit) throw tooLarge(limit);
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    if (signal.aborted) throw new Error('timed out reading the response');
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A response that was not 2xx (`HTTP 404 Not Found`), with its Retry-After for a 429. */
export class HttpStatusError extends Error {
  constructor(readonly status: number, statusText: string, readonly retryAfter: string | null) {
    super(`HTTP ${status} ${statusText}`);
  }
}

/** A fetched response: its text (at most the limit), headers, status and final URL. */
export interface FetchedText {
  text: string;
  headers: Headers;
  status: number;
  url: string;
}

/**
 * One request as the http scraper (and the file scraper's `url`) makes it: redirects followed, the run's signal as
 * its timeout, not 2xx an error (`HTTP 404 Not Found`), the body read up to `limit` bytes (32 MiB). Errors name no
 * URL: the caller says where, masked.
 */
export async function fetchLimited(
  url: string, init: { method?: string; headers?: Headers; body?: string; signal: AbortSignal }, limit = MAX_RESPONSE_BYTES,
): Promise<FetchedText> {
  let res: Response;
  try {
    res = await fetch(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body, signal: init.signal, redirect: 'follow' });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    throw new Error(init.signal.aborted ? 'timed out' : e.cause?.code ?? e.cause?.message ?? e.message);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new HttpStatusError(res.status, res.statusText, res.headers.get('retry-after'));
  }
  const text = await readLimited(res, init.signal, limit);
  return { text, headers: res.headers, status: res.status, url: res.url || url };
}

/**
 * A response's documents: JSON (`format: json`, or text starting with `{` or `[`) or YAML, every document of it; a
 * bare string or number is refused (YAML reads any text, an HTML page too, as a string).
 */
export function responseDocuments(text: string, format: string | undefined): unknown[] {
  let docs: unknown[];
  try {
    docs = parseDocuments(text, format || (text.trimStart().startsWith('{') || text.trimStart().startsWith('[') ? 'json' : undefined));
  } catch (err) {
    throw new Error(`the response is not JSON or YAML: ${(err as Error).message.slice(0, 200)}`);
  }
  if (!docs.length || docs.some((d) => d === null || typeof d !== 'object')) throw new Error('the response is not a JSON or YAML object or list');
  return docs;
}

/** A URL's userinfo, which fetch refuses, split off as basic-auth credentials. Throws on text that is not a URL. */
export function splitUserinfo(url: string): { url: string; user?: string; password?: string } {
  const u = new URL(url);
  if (!u.username && !u.password) return { url };
  const out = { user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
  u.username = '';
  u.password = '';
  return { url: u.toString(), ...out };
}

async function scrapeHttp(ctx: ScrapeContext, raw: Record<string, unknown>): Promise<ScrapeResult> {
  // what the source returns is all it has: an item it no longer returns is gone (the engine acts on it only when complete)
  const result: ScrapeResult = { ...emptyResult(), deleteMissing: true };
  const block = HttpScraper.parse(raw);
  const fail = (msg: string) => {
    result.errors.push(msg);
    result.complete = false;
    return result;
  };
  let secrets: string[] = [];
  let spec: Obj = { ...block };
  try {
    if (block.connection) {
      const merged = await withConnection(ctx, 'http', spec);
      spec = merged.spec;
      secrets = merged.secrets;
    }
    const resolved = await withValues(ctx, { env: spec.env, headers: spec.headers, username: spec.username, password: spec.password });
    secrets = [...secrets, ...resolved.secrets];
    Object.assign(spec, resolved.spec);
  } catch (err) {
    return fail(masked((err as Error).message, secrets));
  }
  const env: Record<string, string> = {};
  for (const e of (spec.env as Obj[] | undefined) ?? []) if (typeof e.name === 'string') env[e.name] = valueOf(e) ?? '';
  const fill = (s: string) => fillPlaceholders(s, env);
  let url = typeof spec.url === 'string' ? fill(spec.url) : '';
  if (!url) return fail('url or connection is required');
  const where = safeUrl(url);
  // fetch refuses a URL with userinfo: those credentials become basic auth (unless the block names its own)
  let inline: ReturnType<typeof splitUserinfo>;
  try {
    inline = splitUserinfo(url);
    url = inline.url;
    if (inline.password) secrets.push(inline.password, encodeURIComponent(inline.password));
  } catch {
    return fail(`${where}: not a URL`);
  }
  const headers = new Headers({ accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' });
  for (const h of (spec.headers as Obj[] | undefined) ?? []) {
    if (typeof h.name === 'string' && h.name) headers.set(h.name, fill(valueOf(h) ?? ''));
  }
  const username = valueOf(spec.username) ?? inline.user;
  const password = valueOf(spec.password) ?? inline.password;
  if ((username || password) && !headers.has('authorization')) {
    headers.set('authorization', `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}`);
    if (password) secrets.push(password);
  }
  const method = (block.method ?? 'GET').toUpperCase();
  const body = block.body !== undefined && method !== 'GET' && method !== 'HEAD' ? fill(block.body) : undefined;
  let docs: unknown[];
  try {
    const first = await fetchLimited(url, { method, headers, body, signal: ctx.signal });
    docs = responseDocuments(first.text, block.format);
    if (block.pagination) {
      const paged = await paginate(block.pagination, first, docs, { headers, signal: ctx.signal, format: block.format });
      docs = paged.docs;
      if (paged.truncated) fail(`pagination: stopped after maxPages (${paged.pages} pages) with more to read; nothing is deleted on this run's account`);
    }
  } catch (err) {
    return fail(masked(`${method} ${where}: ${(err as Error).message}`, secrets));
  }
  const out = await extractDocuments(block, docs.map((config) => ({ config, source: where })));
  result.items = out.items;
  result.changes = out.changes;
  result.relationships = out.relationships;
  result.errors.push(...out.errors.map((e) => masked(e, secrets)));
  if (out.errors.length) result.complete = false;
  return result;
}

export const httpScraper: ScraperType = { key: 'http', scrape: scrapeHttp };
