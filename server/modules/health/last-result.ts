import type pg from 'pg';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';

/**
 * `last_result` (CEL `last_result()`, template `last_result`): the check's previous stored result, in the shape of the
 * reference's contextual function (api/context/functions.go): `status` (pass, a boolean), `invalid`, `createdAt`,
 * `duration` (ms), `message`, `error`, and `results`, the previous run's stored detail (check_statuses.details) when
 * it is a JSON object, else `{}`. A check that never ran gets the reference's zero row: false, the zero time, empty.
 */
// a type, not an interface: templates and CEL take it as a plain record
export type LastResult = {
  status: boolean;
  invalid: boolean;
  createdAt: Date;
  duration: number;
  message: string;
  error: string;
  results: Record<string, unknown>;
};

/** Go's zero time.Time, what the reference's `createdAt` is before a first result. */
const ZERO_TIME = new Date('0001-01-01T00:00:00Z');

/** The canary a check belongs to, as templates see it (`canary.name`, `canary.labels`). */
export interface CanaryRef {
  id: string;
  name: string;
  namespace: string;
  labels: Record<string, string>;
}

/** What a run reads from the database before it starts, when its spec needs it (runner.ts loads it). */
export interface RunContext {
  canary?: CanaryRef;
  lastResult?: LastResult;
}

/**
 * Whether the spec can read last_result anywhere (test, display, transform, templated fields): only then is it
 * loaded, so a fleet of checks that never use it costs no query.
 */
export function mentionsLastResult(spec: Record<string, unknown>): boolean {
  return JSON.stringify(spec).includes('last_result');
}

type Q = Pick<pg.Pool | pg.PoolClient, 'query'>;

interface Row {
  canary_name: string | null;
  canary_namespace: string | null;
  canary_labels: Record<string, string> | null;
  has_result: boolean;
  status: boolean | null;
  invalid: boolean | null;
  duration: number | null;
  message: string | null;
  error: string | null;
  details: unknown;
  created_at: Date | null;
}

/**
 * One round trip: the canary's name and labels, and the check's latest stored result (the primary key
 * (check_id, time), read backwards: one index probe whatever the history's length).
 */
export async function loadRunContext(c: Q, checkId: string, canaryId: string): Promise<RunContext> {
  const { rows } = await c.query<Row>(
    `SELECT ca.name AS canary_name, ca.namespace AS canary_namespace, ca.labels AS canary_labels,
            s.check_id IS NOT NULL AS has_result, s.status, s.invalid, s.duration, s.message, s.error, s.details, s.created_at
     FROM (SELECT 1) one
     LEFT JOIN canaries ca ON ca.id = $2::uuid
     LEFT JOIN LATERAL (
       SELECT check_id, status, invalid, duration, message, error, details, created_at FROM check_statuses
       WHERE check_id = $1::uuid ORDER BY time DESC LIMIT 1
     ) s ON true`,
    [checkId, canaryId],
  );
  const r = rows[0];
  const canary = r?.canary_name != null
    ? { id: canaryId, name: r.canary_name, namespace: r.canary_namespace ?? 'default', labels: r.canary_labels ?? {} }
    : undefined;
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  const lastResult: LastResult = r?.has_result
    ? {
      status: r.status ?? false, invalid: r.invalid ?? false, createdAt: r.created_at ?? ZERO_TIME,
      duration: r.duration ?? 0, message: r.message ?? '', error: r.error ?? '',
      results: isObject(r.details) ? r.details : {},
    }
    : { status: false, invalid: false, createdAt: ZERO_TIME, duration: 0, message: '', error: '', results: {} };
  return { canary, lastResult };
}

/** As CEL's `last_result()` returns it: `createdAt` a timestamp, as Go's time.Time reaches cel-go. */
export function lastResultForCel(lr: LastResult | undefined): Record<string, unknown> | undefined {
  return lr && { ...lr, createdAt: timestampFromDate(lr.createdAt) };
}
