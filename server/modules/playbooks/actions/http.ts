import http from 'node:http';
import https from 'node:https';
import { HttpAction } from '../../../contracts/playbook-actions/http.js';
import { isConnectionRef } from '../../../lib/connection-ref.js';
import { abortError, envValue, masked, remainingMs, useConnection } from './support.js';
import type { ActionContext, PlaybookActionType } from './types.js';

/** Response bodies are kept up to this; the rest is dropped (the result says so in `truncated`). */
export const MAX_CONTENT_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 10;

interface Target {
  url: string;
  username?: string;
  password?: string;
  insecure: boolean;
}

/** `Content-Type` as Go's net/http writes header names (the reference's result keys). */
const canonical = (name: string) => name.replace(/(^|-)([a-z])/g, (_, d: string, c: string) => d + c.toUpperCase());

/**
 * The `http` action (issue 14): one request to `url` or a connection's url → `{code, headers, content}`, as the
 * reference's HTTP action returns it. Any status is a result (the reference fails only when no response came), so a
 * later action's `if` can look at `code`. `content` is the body as text, parsed when the response says it is JSON.
 * Credentials: username/password (Basic), `bearer`, a connection's username/password, each masked in the run.
 * Redirects are followed (10 at most; credentials only within the first origin). Cancel and timeout abort the request.
 */
async function target(spec: HttpAction, ctx: ActionContext): Promise<Target> {
  const t: Target = { url: spec.url ?? '', insecure: spec.tls?.insecureSkipVerify === true };
  const ref = spec.connection?.trim();
  const plainUrl = !!ref && !isConnectionRef(ref) && /^https?:\/\//i.test(ref);
  if (ref && !plainUrl) {
    const conn = await useConnection(ctx, ref);
    if (!t.url) t.url = conn.url;
    else if (t.url.startsWith('/') && conn.url) t.url = conn.url.replace(/\/+$/, '') + t.url;
    t.username = conn.username || undefined;
    t.password = conn.password || undefined;
    if (spec.tls?.insecureSkipVerify === undefined) t.insecure = conn.insecure_tls;
  } else if (plainUrl && !t.url) t.url = ref;
  const user = await envValue(ctx, spec.username, 'username');
  const pass = await envValue(ctx, spec.password, 'password', true);
  if (user !== undefined) t.username = user;
  if (pass !== undefined) t.password = pass;
  if (!t.url) throw new Error('http: no url (set url, or a connection with a url)');
  return t;
}

interface Response {
  code: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
  location?: string;
}

function send(url: URL, method: string, headers: Record<string, string>, body: string | undefined, insecure: boolean, signal: AbortSignal, timeoutMs: number): Promise<Response> {
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const fail = (err: Error) => reject(deadline.aborted && !signal.aborted ? new Error(`timed out after ${Math.round(timeoutMs / 1000)} s`) : err);
    const req = lib.request(url, { method, headers, signal: AbortSignal.any([signal, deadline]), rejectUnauthorized: !insecure }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      res.on('data', (c: Buffer) => {
        if (size >= MAX_CONTENT_BYTES) { truncated = true; return; }
        chunks.push(c.subarray(0, MAX_CONTENT_BYTES - size));
        if (size + c.length > MAX_CONTENT_BYTES) truncated = true;
        size += c.length;
      });
      res.on('end', () => resolve({
        code: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), truncated,
        location: typeof res.headers.location === 'string' ? res.headers.location : undefined,
      }));
      res.on('error', fail);
    });
    req.on('error', fail);
    if (body !== undefined && method !== 'GET' && method !== 'HEAD') req.end(body);
    else req.end();
  });
}

async function runHttp(block: Record<string, unknown>, ctx: ActionContext): Promise<Record<string, unknown>> {
  const spec = HttpAction.parse(block);
  const t = await target(spec, ctx);
  let method = (spec.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = {};
  for (const [i, h] of (spec.headers ?? []).entries()) {
    const v = await envValue(ctx, h, `headers[${i}]`, /authorization|token|key|secret|cookie/i.test(h.name));
    if (v !== undefined) headers[h.name] = v;
  }
  const has = (n: string) => Object.keys(headers).some((k) => k.toLowerCase() === n);
  const bearer = await envValue(ctx, spec.bearer, 'bearer', true);
  const auth = bearer ? `Bearer ${bearer}` : t.username !== undefined ? `Basic ${Buffer.from(`${t.username}:${t.password ?? ''}`).toString('base64')}` : undefined;
  if (auth && !has('authorization')) {
    ctx.addSecret(auth.slice(auth.indexOf(' ') + 1));
    headers.Authorization = auth;
  }
  let body = spec.body;
  if (body !== undefined && !has('content-type')) headers['Content-Type'] = /^\s*[[{]/.test(body) ? 'application/json' : 'text/plain';

  let url: URL;
  try {
    url = new URL(t.url);
  } catch {
    throw new Error(`http: ${masked(t.url, t.password ? [t.password] : [])} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`http: ${url.protocol}// URLs are not supported (http or https)`);
  if (url.password) ctx.addSecret(decodeURIComponent(url.password));
  const origin = url.origin;
  let res: Response;
  for (let hop = 0; ; hop++) {
    try {
      res = await send(url, method, headers, body, t.insecure, ctx.signal, remainingMs(ctx));
    } catch (err) {
      if (ctx.signal.aborted) throw abortError(ctx.signal);
      throw new Error(`http: ${method} ${url.origin}${url.pathname} failed: ${(err as Error).message}`);
    }
    if (!res.location || ![301, 302, 303, 307, 308].includes(res.code) || hop >= MAX_REDIRECTS) break;
    url = new URL(res.location, url);
    if (res.code === 303 || ((res.code === 301 || res.code === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
    if (url.origin !== origin) for (const k of Object.keys(headers)) if (/^(authorization|cookie)$/i.test(k)) delete headers[k];
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[canonical(k)] = Array.isArray(v) ? v[0] : v;
  const text = res.body.toString('utf8');
  let content: unknown = text;
  if (/\bjson\b/i.test(String(res.headers['content-type'] ?? '')) && !res.truncated) {
    try {
      content = JSON.parse(text);
    } catch {
      // said JSON but is not: kept as text
    }
  }
  ctx.log('stdout', `${method} ${url.origin}${url.pathname} → ${res.code}\n`);
  return { code: res.code, headers: out, content, ...(res.truncated ? { truncated: true } : {}) };
}

export const httpAction: PlaybookActionType = { type: 'http', run: runHttp };
