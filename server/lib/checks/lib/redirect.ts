import { isIP } from 'node:net';

/**
 * Redirect rules of Go's net/http client (the reference's runtime), applied by the http check one hop at a time.
 */

/** Go's default CheckRedirect stops after this many redirects. */
export const DEFAULT_MAX_REDIRECTS = 10;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface Hop {
  url: URL;
  method: string;
  /** undefined: no body (it was dropped on a method change). */
  body: string | undefined;
}

/**
 * The request to send after a redirect response, or null when `code`/`location` do not redirect (304 and 300 are
 * not followed, and a 3xx without Location is the response itself, as in Go). 301/302/303 turn the request into a
 * body-less GET (HEAD stays HEAD); 307/308 repeat method and body.
 */
export function nextHop(prev: Hop, code: number, location: string | undefined): Hop | null {
  if (!REDIRECTS.has(code) || !location) return null;
  const url = new URL(location, prev.url);
  url.hash = '';
  // credentials in a Location are not honoured: what is sent is decided by the check's own fields
  url.username = '';
  url.password = '';
  if (code === 307 || code === 308) return { url, method: prev.method, body: prev.body };
  const method = prev.method === 'GET' || prev.method === 'HEAD' ? prev.method : 'GET';
  return { url, method, body: undefined };
}

/**
 * Go's rule for Authorization/Cookie on redirect: sent only to the original host or a subdomain of it
 * (`example.com` → `api.example.com`), never to another host; ports do not matter, IP addresses must match.
 */
export function mayKeepCredentials(original: URL, dest: URL): boolean {
  const o = bare(original.hostname);
  const d = bare(dest.hostname);
  if (o === d) return true;
  if (isIP(o) || isIP(d)) return false;
  return d.endsWith(`.${o}`);
}

const bare = (host: string) => host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');

/** Request headers that carry credentials: dropped once a redirect leaves the original host. */
export const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'cookie2', 'www-authenticate'];
/** Headers that describe a body: dropped with the body when a redirect turns the request into a GET. */
export const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'transfer-encoding'];
