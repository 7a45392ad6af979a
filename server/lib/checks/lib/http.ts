import { InvalidSpecError } from './result.js';

/** Largest response body a check reads (JSON APIs: Prometheus, Alertmanager, search); beyond it the check fails. */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export interface HttpTarget {
  /** The URL without credentials (fetch refuses URLs with userinfo). */
  url: URL;
  headers: Record<string, string>;
}

/**
 * Parses an http(s) base URL; credentials in the URL or in username/password become a Basic Authorization header.
 */
export function httpTarget(raw: string, username?: string, password?: string): HttpTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidSpecError(`invalid url: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidSpecError(`unsupported url scheme ${url.protocol} (expected http or https)`);
  }
  const user = username ?? (url.username ? decodeURIComponent(url.username) : undefined);
  const pass = password ?? (url.password ? decodeURIComponent(url.password) : undefined);
  url.username = '';
  url.password = '';
  const headers: Record<string, string> = {};
  if (user !== undefined || pass !== undefined) {
    headers.authorization = `Basic ${Buffer.from(`${user ?? ''}:${pass ?? ''}`).toString('base64')}`;
  }
  return { url, headers };
}

/** `base` joined with an API path, keeping a path prefix of the base (`http://h/prometheus` + `/api/v1/query`). */
export function joinUrl(base: URL, path: string): URL {
  const u = new URL(base.toString());
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  return u;
}

export interface BoundedResponse {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

/**
 * fetch that honours `signal` for the whole exchange and reads at most `maxBytes` of the body: a larger body is
 * cancelled and reported as an error rather than buffered.
 */
export async function fetchBounded(
  url: URL,
  init: { method?: string; headers?: Record<string, string>; body?: string; signal: AbortSignal; maxBytes?: number },
): Promise<BoundedResponse> {
  const maxBytes = init.maxBytes ?? MAX_RESPONSE_BYTES;
  const res = await fetch(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body, signal: init.signal, redirect: 'follow' });
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`response too large: ${declared} bytes (limit ${maxBytes})`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new Error(`response too large: more than ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  }
  return { status: res.status, statusText: res.statusText, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') };
}

/** Parses a JSON body, with the start of the body in the error when it is not JSON. */
export function parseJsonBody(res: BoundedResponse): unknown {
  try {
    return JSON.parse(res.text);
  } catch {
    throw new Error(`HTTP ${res.status}: response is not JSON: ${truncate(res.text, 200)}`);
  }
}

export function truncate(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
