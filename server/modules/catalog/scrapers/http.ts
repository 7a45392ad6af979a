import { fillPlaceholders } from '../../../lib/connection-hydrate.js';
import { HttpScraper } from '../../../contracts/catalog.js';
import { extractDocuments } from '../extract.js';
import { emptyResult, type ScrapeContext, type ScrapeResult, type ScraperType } from '../types.js';
import { parseDocuments } from './file.js';
import { masked, safeUrl, withConnection, withValues } from './connection.js';

/**
 * `spec.http[]`: one request (`url`, or the url and credentials of `connection://`), `method` (GET), `headers` and
 * `body`; `env` EnvVars (static or valueFrom a Secret/ConfigMap) fill `$(name)` in the url, headers and body. The
 * response (JSON, or YAML) is one document for extract.ts. Not 2xx, unreachable, slower than the run's timeout or
 * not JSON: an error, and a partial run. Secrets never reach an error: they are masked, and URLs lose userinfo and
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

async function readLimited(res: Response, signal: AbortSignal): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > MAX_RESPONSE_BYTES) throw new Error(`response larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB`);
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    if (signal.aborted) throw new Error('timed out reading the response');
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new Error(`response larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
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
  let inline: { user: string; password: string } | undefined;
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      inline = { user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
      secrets.push(inline.password, u.password);
      u.username = '';
      u.password = '';
      url = u.toString();
    }
  } catch {
    return fail(`${where}: not a URL`);
  }
  const headers = new Headers({ accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' });
  for (const h of (spec.headers as Obj[] | undefined) ?? []) {
    if (typeof h.name === 'string' && h.name) headers.set(h.name, fill(valueOf(h) ?? ''));
  }
  const username = valueOf(spec.username) ?? inline?.user;
  const password = valueOf(spec.password) ?? inline?.password;
  if ((username || password) && !headers.has('authorization')) {
    headers.set('authorization', `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}`);
    if (password) secrets.push(password);
  }
  const method = (block.method ?? 'GET').toUpperCase();
  let text: string;
  try {
    const res = await fetch(url, {
      method,
      headers,
      body: block.body !== undefined && method !== 'GET' && method !== 'HEAD' ? fill(block.body) : undefined,
      signal: ctx.signal,
      redirect: 'follow',
    });
    if (!res.ok) {
      await res.body?.cancel();
      return fail(`${method} ${where}: HTTP ${res.status} ${res.statusText}`);
    }
    text = await readLimited(res, ctx.signal);
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const reason = ctx.signal.aborted ? 'timed out' : e.cause?.code ?? e.cause?.message ?? e.message;
    return fail(masked(`${method} ${where}: ${reason}`, secrets));
  }
  let docs: unknown[];
  try {
    const type = block.format ?? '';
    docs = parseDocuments(text, type || (text.trimStart().startsWith('{') || text.trimStart().startsWith('[') ? 'json' : undefined));
  } catch (err) {
    return fail(`${method} ${where}: the response is not JSON or YAML: ${(err as Error).message.slice(0, 200)}`);
  }
  // YAML reads any text as a string: a page of HTML is not a document of items
  if (!docs.length || docs.some((d) => d === null || typeof d !== 'object')) return fail(`${method} ${where}: the response is not a JSON or YAML object or list`);
  const out = extractDocuments(block, docs.map((config) => ({ config, source: where })));
  result.items = out.items;
  result.changes = out.changes;
  result.relationships = out.relationships;
  result.errors.push(...out.errors.map((e) => masked(e, secrets)));
  if (out.errors.length) result.complete = false;
  return result;
}

export const httpScraper: ScraperType = { key: 'http', scrape: scrapeHttp };
