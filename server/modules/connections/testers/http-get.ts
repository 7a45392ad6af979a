import http from 'node:http';
import https from 'node:https';
import { hostPort, maskUrl, parseUrl, testFailure } from './lib.js';
import { ConnectionTestError, type HydratedConnection, type TesterContext } from './types.js';

export interface HttpAnswer {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The url asked for, its password masked. */
  url: string;
}

/** Bodies past this are cut: a test reads cluster info or a status, never a download. */
const MAX_BODY = 1024 * 1024;

/**
 * GET `raw` (http or https) for a tester: basic auth from the url's own credentials, else from the connection's
 * username and password; `insecure_tls` accepts any certificate. No redirects are followed (a 3xx is an answer).
 * Network and TLS failures become ConnectionTestError saying what failed.
 */
export function httpGet(c: HydratedConnection, raw: string, ctx: TesterContext, what: string): Promise<HttpAnswer> {
  const u = parseUrl(raw, ['http', 'https']);
  const user = u.username ? decodeURIComponent(u.username) : c.username ?? '';
  const pass = u.password ? decodeURIComponent(u.password) : c.password ?? '';
  const shown = maskUrl(u.toString());
  u.username = '';
  u.password = '';
  const target = hostPort(u, u.protocol === 'https:' ? 443 : 80);
  const headers: Record<string, string> = { accept: 'application/json, */*;q=0.5', 'user-agent': 'ops-console-connection-test' };
  if (user || pass) headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  const lib = u.protocol === 'https:' ? https : http;
  return new Promise<HttpAnswer>((resolve, reject) => {
    const req = lib.get(u, { headers, signal: ctx.signal, timeout: ctx.timeoutMs, rejectUnauthorized: !c.insecure_tls }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (d: Buffer) => {
        size += d.length;
        if (size <= MAX_BODY) chunks.push(d);
        else res.destroy();
      });
      res.on('error', () => {});
      res.on('close', () =>
        resolve({
          status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'), url: shown,
        }),
      );
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', (err) => reject(ctx.signal.aborted ? new ConnectionTestError('aborted') : testFailure(err, target, `${what} ${shown}`)));
  });
}

/** Throws the usual message for a 401/403 (auth) or another status outside 2xx/3xx. */
export function expectOk(a: HttpAnswer, what: string): void {
  if (a.status === 401 || a.status === 403) {
    throw new ConnectionTestError(`authentication failed: ${what} ${a.url} answered ${a.status} ${a.statusText}`.trim());
  }
  if (a.status < 200 || a.status >= 400) {
    throw new ConnectionTestError(`${what} ${a.url} answered ${a.status} ${a.statusText}`.trim());
  }
}

/** The body as JSON, or a message saying the server is not what the type expects. */
export function jsonBody(a: HttpAnswer, what: string): Record<string, unknown> {
  try {
    const v = JSON.parse(a.body) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new ConnectionTestError(`${a.url} did not answer as ${what} does (no JSON object)`);
}
