import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { z } from 'zod';
import type { CheckContext, CheckResult, CheckType } from './types.js';
import { errorText, jsonPath, NameValue, toHeaderMap } from './util.js';

/** Bodies are read up to this; the rest is discarded (content matching sees the first MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;

const HttpSpec = z.object({
  url: z.string().optional(),
  endpoint: z.string().optional(),
  method: z.string().regex(/^[A-Za-z]+$/).default('GET'),
  headers: z.union([z.array(NameValue), z.record(z.string(), z.string())]).optional(),
  body: z.string().optional(),
  responseCodes: z.array(z.number().int().min(100).max(599)).optional(),
  responseContent: z.string().optional(),
  responseJSONContent: z.object({ path: z.string().min(1), value: z.string() }).optional(),
  /** Fail when the certificate expires in fewer days than this. */
  maxSSLExpiry: z.number().int().min(0).optional(),
  tlsConfig: z.object({ insecureSkipVerify: z.boolean().optional(), ca: z.string().optional() }).optional(),
}).refine((s) => s.url || s.endpoint, { message: 'url (or endpoint) is required', path: ['url'] });
type HttpSpec = z.infer<typeof HttpSpec>;

interface Fetched {
  code: number;
  headers: Record<string, string>;
  content: string;
  truncated: boolean;
  bytes: number;
  sslDaysLeft?: number;
  sslNotAfter?: string;
}

function fetchOnce(url: URL, spec: HttpSpec, signal: AbortSignal): Promise<Fetched> {
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, {
      method: spec.method.toUpperCase(),
      headers: toHeaderMap(spec.headers),
      signal,
      agent: false, // a fresh connection each run: honest timings and a certificate to inspect
      ...(url.protocol === 'https:' && {
        rejectUnauthorized: !spec.tlsConfig?.insecureSkipVerify,
        ca: spec.tlsConfig?.ca,
        // SNI carries names only (RFC 6066)
        servername: isIP(url.hostname.replace(/^\[|\]$/g, '')) ? undefined : url.hostname,
      }),
    }, (res) => {
      let sslDaysLeft: number | undefined;
      let sslNotAfter: string | undefined;
      const sock = res.socket as TLSSocket;
      if (typeof sock.getPeerCertificate === 'function') {
        const cert = sock.getPeerCertificate();
        if (cert?.valid_to) {
          const notAfter = new Date(cert.valid_to);
          sslNotAfter = notAfter.toISOString();
          sslDaysLeft = Math.floor((notAfter.getTime() - Date.now()) / 86_400_000);
        }
      }
      const chunks: Buffer[] = [];
      let kept = 0;
      let bytes = 0;
      let truncated = false;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (kept < MAX_BODY_BYTES) {
          const part = chunk.subarray(0, MAX_BODY_BYTES - kept);
          chunks.push(part);
          kept += part.length;
        }
        if (bytes > MAX_BODY_BYTES && !truncated) {
          truncated = true;
          res.destroy(); // stop reading a huge body instead of downloading it to throw it away
          finish();
        }
      });
      const finish = () => resolve({
        code: res.statusCode ?? 0,
        headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v ?? ''])),
        content: Buffer.concat(chunks).toString('utf8'),
        truncated, bytes, sslDaysLeft, sslNotAfter,
      });
      res.on('end', finish);
      res.on('error', (err) => (truncated ? undefined : reject(err)));
      res.on('aborted', () => (truncated ? undefined : reject(new Error('response aborted'))));
    });
    req.on('error', reject);
    if (spec.body !== undefined) req.end(spec.body);
    else req.end();
  });
}

async function run(spec: HttpSpec, ctx: CheckContext): Promise<CheckResult> {
  const start = performance.now();
  const elapsed = () => Math.round(performance.now() - start);
  let url: URL;
  try {
    url = new URL(spec.url ?? spec.endpoint ?? '');
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol ${url.protocol}`);
  } catch (err) {
    return { pass: false, invalid: true, duration: 0, error: `invalid url: ${errorText(err)}`, data: {} };
  }
  let f: Fetched;
  try {
    f = await fetchOnce(url, spec, ctx.signal);
  } catch (err) {
    const error = ctx.signal.aborted ? `timed out after ${ctx.timeoutMs} ms` : errorText(err);
    return { pass: false, duration: elapsed(), error, data: {} };
  }
  const duration = elapsed();
  let json: unknown;
  const looksJson = /json/i.test(f.headers['content-type'] ?? '') || /^\s*[[{]/.test(f.content);
  if (looksJson && !f.truncated) {
    try {
      json = JSON.parse(f.content);
    } catch {
      json = undefined;
    }
  }
  const data = {
    code: f.code, headers: f.headers, content: f.content, json: json ?? null, elapsed: duration,
    sslAge: f.sslDaysLeft ?? null, url: url.toString(),
  };
  const detail = {
    code: f.code, bytes: f.bytes, ...(f.truncated && { truncated: true }),
    ...(f.sslNotAfter && { sslNotAfter: f.sslNotAfter, sslDaysLeft: f.sslDaysLeft }),
  };
  const fail = (error: string): CheckResult => ({ pass: false, duration, error, detail, data, message: `${f.code}` });

  const okCode = spec.responseCodes?.length ? spec.responseCodes.includes(f.code) : f.code >= 200 && f.code < 300;
  if (!okCode) {
    return fail(`response code ${f.code} not in ${spec.responseCodes?.length ? `[${spec.responseCodes.join(', ')}]` : '200-299'}`);
  }
  if (spec.responseContent !== undefined && !f.content.includes(spec.responseContent)) {
    return fail(`response does not contain "${spec.responseContent.slice(0, 200)}"${f.truncated ? ' (first 1 MiB searched)' : ''}`);
  }
  if (spec.responseJSONContent) {
    if (f.truncated) return fail(`response larger than ${MAX_BODY_BYTES} bytes: JSON not parsed`);
    if (json === undefined) return fail('response is not JSON');
    const got = jsonPath(json, spec.responseJSONContent.path);
    const text = got === undefined ? undefined : typeof got === 'string' ? got : JSON.stringify(got);
    if (text !== spec.responseJSONContent.value) {
      return fail(`${spec.responseJSONContent.path} is ${text === undefined ? 'missing' : JSON.stringify(text)}, expected ${JSON.stringify(spec.responseJSONContent.value)}`);
    }
  }
  if (spec.maxSSLExpiry !== undefined && f.sslDaysLeft !== undefined && f.sslDaysLeft < spec.maxSSLExpiry) {
    return fail(`SSL certificate expires in ${f.sslDaysLeft} days (less than maxSSLExpiry ${spec.maxSSLExpiry})`);
  }
  return { pass: true, duration, message: `${f.code}${f.truncated ? ' (body truncated at 1 MiB)' : ''}`, detail, data };
}

/** HTTP(S) requests: status code, content, JSON path, TLS certificate expiry. */
export const httpCheck: CheckType<HttpSpec> = { type: 'http', schema: HttpSpec, run };
