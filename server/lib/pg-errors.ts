/** HTTP status for a PostgreSQL SQLSTATE, as PostgREST maps them (reference/postgrest.md, "Errors"). */
export function statusForSqlState(code: string, authenticated = true): number {
  if (code === 'PT402') return 402;
  const exact: Record<string, number> = {
    '23503': 409, '23505': 409, '25006': 405, P0001: 400, '42883': 404, '42P01': 404, '42P17': 500,
    '53400': 500, '42501': authenticated ? 403 : 401,
  };
  if (code in exact) return exact[code];
  const prefixes: [string, number][] = [
    ['08', 503], ['09', 500], ['0L', 403], ['0P', 403], ['25', 500], ['28', 403], ['2D', 500], ['38', 500],
    ['39', 500], ['3B', 500], ['40', 500], ['53', 503], ['54', 500], ['55', 500], ['57', 500], ['58', 500],
    ['F0', 500], ['HV', 500], ['P0', 500], ['XX', 500],
  ];
  for (const [p, s] of prefixes) if (code.startsWith(p)) return s;
  return 400;
}

/** True for errors thrown by `pg` that carry a SQLSTATE. */
export function isPgError(err: unknown): err is { code: string; message: string; detail?: string; hint?: string } {
  return (
    typeof err === 'object' && err !== null && 'code' in err && typeof (err as { code: unknown }).code === 'string' &&
    /^[0-9A-Z]{5}$/.test((err as { code: string }).code) && 'severity' in err
  );
}
