import { z } from 'zod';

/** Helpers shared by check types. */

/** The reference's EnvVar-style `{name, value}` (valueFrom is not resolved here). */
export const NameValue = z.object({ name: z.string().min(1), value: z.string().default('') });

export function toHeaderMap(h: Array<{ name: string; value: string }> | Record<string, string> | undefined): Record<string, string> {
  if (!h) return {};
  return Array.isArray(h) ? Object.fromEntries(h.map((x) => [x.name, x.value])) : h;
}

/** A short, readable reason from anything thrown. */
export function errorText(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length) return errorText(err.errors[0]);
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/** `host:port`, `[v6]:port`, with optional scheme prefix (`tcp://`). */
export function parseHostPort(endpoint: string): { host: string; port: number } | null {
  const s = endpoint.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(s) ?? /^([^:]+):(\d+)$/.exec(s);
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
