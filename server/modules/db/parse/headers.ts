import { ApiError } from '../../../lib/errors.js';

/** The Prefer tokens we act on; `applied` lists the ones to echo in Preference-Applied. */
export interface Preferences {
  return: 'minimal' | 'representation' | 'headers-only' | null;
  count: boolean;
  resolution: 'merge-duplicates' | 'ignore-duplicates' | null;
  rollback: boolean;
  /** `missing=default`: keys a row of a bulk insert lacks take the column default instead of NULL. */
  missingDefault: boolean;
  /** `max-affected=n`, honoured (like PostgREST) only together with `handling=strict`. */
  maxAffected: number | null;
  applied: string[];
}

const KNOWN: Record<string, readonly string[]> = {
  return: ['minimal', 'representation', 'headers-only'],
  count: ['exact', 'planned', 'estimated'],
  resolution: ['merge-duplicates', 'ignore-duplicates'],
  tx: ['commit', 'rollback'],
  handling: ['strict', 'lenient'],
  missing: ['default', 'null'],
  timezone: [],
  'max-affected': [],
};

/**
 * Parses `Prefer` (one header or several joined by commas). Unknown or invalid tokens are ignored, as PostgREST
 * does with `handling=lenient` (the default); with `handling=strict` they are a 400 PGRST122.
 */
export function parsePrefer(header: string | string[] | undefined): Preferences {
  const p: Preferences = { return: null, count: false, resolution: null, rollback: false, missingDefault: false, maxAffected: null, applied: [] };
  const raw = Array.isArray(header) ? header.join(',') : header ?? '';
  const invalid: string[] = [];
  let strict = false;
  let maxAffected: number | null = null;
  const tokens = raw.split(',').map((t) => t.trim()).filter(Boolean).slice(0, 20);
  for (const token of tokens) {
    const [k, v = ''] = token.split('=', 2).map((x) => x.trim());
    const allowed = KNOWN[k];
    if (!allowed || (allowed.length && !allowed.includes(v)) || (k === 'max-affected' && !/^\d{1,9}$/.test(v))) {
      invalid.push(token);
      continue;
    }
    if (k === 'handling') strict = v === 'strict';
    if (k === 'max-affected') maxAffected = Number(v);
    if (k === 'return') p.return = v as Preferences['return'];
    else if (k === 'count') p.count = true;
    else if (k === 'resolution') p.resolution = v as Preferences['resolution'];
    else if (k === 'tx') p.rollback = v === 'rollback';
    else if (k === 'missing') p.missingDefault = v === 'default';
    else continue;
    p.applied.push(`${k}=${v}`);
  }
  if (strict && invalid.length) {
    throw new ApiError(400, 'PGRST122', 'Invalid preferences given with handling=strict', `Invalid preferences: ${invalid.join(', ').slice(0, 200)}`);
  }
  if (strict && maxAffected !== null) {
    p.maxAffected = maxAffected;
    p.applied.push('handling=strict', `max-affected=${maxAffected}`);
  }
  return p;
}

/** 400 PGRST124 when a strict `max-affected=n` is exceeded (the caller rolls the transaction back). */
export function checkMaxAffected(prefer: Preferences, n: number): void {
  if (prefer.maxAffected !== null && n > prefer.maxAffected) {
    throw new ApiError(400, 'PGRST124', 'Query result exceeds max-affected preference constraint', `The query affects ${n} rows`);
  }
}

/** The `Range: first-[last]` header as offset and optional limit; a malformed or inverted range is a 416. */
export function parseRange(header: string | undefined): { offset: number; limit: number | null } | null {
  if (header === undefined || header.trim() === '') return null;
  const m = /^\s*(?:items=)?(\d{1,15})-(\d{0,15})\s*$/.exec(header);
  if (!m || (m[2] !== '' && Number(m[2]) < Number(m[1]))) {
    throw new ApiError(416, 'PGRST103', 'Requested range not satisfiable', `Invalid Range header: ${header.slice(0, 50)}`);
  }
  return { offset: Number(m[1]), limit: m[2] === '' ? null : Number(m[2]) - Number(m[1]) + 1 };
}

/** True when the client asks for one JSON object instead of an array. */
export function wantsSingular(accept: string | undefined): boolean {
  return !!accept && accept.includes('application/vnd.pgrst.object+json');
}

/** The response shape an `Accept` header asks for. */
export interface MediaType {
  format: 'json' | 'csv';
  /** `application/vnd.pgrst.object+json`: one object instead of an array (406 unless exactly one row). */
  singular: boolean;
  /** `;nulls=stripped` (postgrest-js `stripNulls()`): keys whose value is null are left out. */
  stripNulls: boolean;
}

const MEDIA: Record<string, Omit<MediaType, 'stripNulls'>> = {
  'application/json': { format: 'json', singular: false },
  'application/vnd.pgrst.array+json': { format: 'json', singular: false },
  'application/vnd.pgrst.object+json': { format: 'json', singular: true },
  'text/csv': { format: 'csv', singular: false },
};

/**
 * The first media type of `Accept` we can produce, in the client's order (q-values are not weighed; no client of
 * this API sends competing ones). Anything else, `*\/*` included, is JSON: unlike PostgREST we never answer 406
 * here, because browsers and axios send lists that mention types we cannot produce.
 */
export function negotiate(accept: string | undefined): MediaType {
  for (const part of (accept ?? '').split(',').slice(0, 20)) {
    const [type, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const known = MEDIA[type];
    if (known) return { ...known, stripNulls: params.includes('nulls=stripped') && known.format === 'json' };
  }
  return { format: 'json', singular: false, stripNulls: false };
}

/**
 * `Accept-Profile` (reads) / `Content-Profile` (writes, RPC POST): only `public` is exposed, as PostgREST with
 * `db-schemas=public` answers; any other schema is a 406 PGRST106 before anything runs.
 */
export function checkProfile(profile: string | undefined): void {
  if (profile === undefined || profile.trim() === '' || profile.trim() === 'public') return;
  throw new ApiError(406, 'PGRST106', `Invalid schema: ${profile.slice(0, 63)}`, null, 'Only the following schemas are exposed: public');
}

/**
 * Content-Range of a write, as PostgREST sets it: `*` for inserts (no window), `0-(n-1)` for updates and deletes,
 * and the affected row count after the slash when `Prefer: count=` asked for it (postgrest-js reads `count` there).
 */
export function writeContentRange(n: number, inserted: boolean, withCount: boolean): string {
  return `${inserted || !n ? '*' : `0-${n - 1}`}/${withCount ? n : '*'}`;
}
