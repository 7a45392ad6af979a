import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Helpers shared by check types. */

/** The reference's EnvVar-style `{name, value}` (valueFrom is not resolved here). */
export const NameValue = z.object({ name: z.string().min(1), value: z.string().default('') });

export function toHeaderMap(h: Array<{ name: string; value: string }> | Record<string, string> | undefined): Record<string, string> {
  if (!h) return {};
  return Array.isArray(h) ? Object.fromEntries(h.map((x) => [x.name, x.value])) : h;
}

const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

/** Go's names for this platform, as the reference's search clients write them in their User-Agent. */
const GOOS = ({ win32: 'windows' } as Record<string, string>)[process.platform] ?? process.platform;
const GOARCH = ({ x64: 'amd64', ia32: '386' } as Record<string, string>)[process.arch] ?? process.arch;

/**
 * The User-Agent each HTTP-based check sends: the product token of the client the reference uses for that type
 * (servers, proxies and access-log filters key on it), with the console named in the comment.
 */
export const USER_AGENTS = {
  /** checks/http.go: `canary-checker/<version>` */
  http: `canary-checker/${version} (ops-console)`,
  /** pkg/prometheus: client_golang over net/http, which sends Go's default */
  prometheus: `Go-http-client/1.1 (ops-console/${version})`,
  /** checks/alertmanager.go: flanksource/commons' http client and its default */
  alertmanager: `flanksource-commons/0 (ops-console/${version})`,
  /** go-elasticsearch v8.19.4, the reference's pinned client */
  elasticsearch: `go-elasticsearch/8.19.4 (${GOOS} ${GOARCH}; ops-console/${version})`,
  /** opensearch-go v2.3.0, the reference's pinned client */
  opensearch: `opensearch-go/2.3.0 (${GOOS} ${GOARCH}; ops-console/${version})`,
} as const;

/** `headers` with a User-Agent added unless they carry one already (in any case), as the reference's clients do. */
export function withUserAgent(headers: Record<string, string>, agent: string): Record<string, string> {
  return Object.keys(headers).some((k) => k.toLowerCase() === 'user-agent') ? headers : { ...headers, 'user-agent': agent };
}

/** A short, readable reason from anything thrown. */
export function errorText(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length) return errorText(err.errors[0]);
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/**
 * `ADDRESS:PORT` exactly, as the reference's tcp check reads an endpoint (one colon): a scheme (`https://host:80`)
 * makes it malformed there, so here too. `[v6]:port` is accepted besides (the reference has no way to write one).
 */
export function parseHostPort(endpoint: string): { host: string; port: number } | null {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(endpoint) ?? /^([^:]+):(\d+)$/.exec(endpoint);
  if (!m) return null;
  const port = Number(m[2]);
  return port > 0 && port < 65536 ? { host: m[1], port } : null;
}

/**
 * A small JSONPath subset: `$.a.b[0].c`, `a.b`, `$['key']`. Enough for `responseJSONContent.path`; undefined when
 * the path is absent.
 */
export function jsonPath(doc: unknown, path: string): unknown {
  const tokens: string[] = [];
  const re = /\.?([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/g;
  const body = path.trim().replace(/^\$/, '');
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(body)) !== null) {
    if (m.index !== consumed) return undefined;
    consumed = re.lastIndex;
    tokens.push(m[1] ?? m[2] ?? m[3] ?? m[4]);
  }
  if (consumed !== body.length) return undefined;
  let cur: unknown = doc;
  for (const t of tokens) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = Array.isArray(cur) ? cur[Number(t)] : (cur as Record<string, unknown>)[t];
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Keeps the first `max` characters of a text. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
