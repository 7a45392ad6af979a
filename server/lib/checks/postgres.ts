import pg from 'pg';
import { abortable } from './lib/abort.js';
import { envValue, interpolateCredentials, targetUrl } from './lib/env-var.js';
import { InvalidSpecError, failResult, passResult, resultFromError, plural } from './lib/result.js';
import { maskUrl, redactor } from './lib/secrets.js';
import { RowCollector, SqlCheckSpec, sqlQuery, sqlVerdict } from './lib/sql.js';
import type { CheckContext, CheckResult, CheckType } from './types.js';

export const PostgresCheckSpec = SqlCheckSpec;
export type PostgresCheckSpec = SqlCheckSpec;

/**
 * `postgres`: connects with `pg`, runs `query` (default `SELECT 1`) and fails when fewer than `results` rows come
 * back. `data` = `{ rows, count, truncated }`; bigint and numeric columns are numbers, as the reference's rows
 * (`count(*)` compares with a number in `results.rows[0].count > 5`); a bigint past 2^53 stays a string.
 */
export const postgresCheck: CheckType<PostgresCheckSpec> = {
  type: 'postgres',
  schema: PostgresCheckSpec,
  run: runPostgres,
};

async function runPostgres(spec: PostgresCheckSpec, ctx: CheckContext): Promise<CheckResult> {
  const start = performance.now();
  let redact = (s: string) => s;
  let client: pg.Client | undefined;
  try {
    const username = envValue(spec.username, 'username');
    const password = envValue(spec.password, 'password');
    const config = clientConfig(interpolateCredentials(targetUrl(spec), username, password), username, password);
    const secret = typeof config.password === 'string' ? config.password : undefined;
    redact = redactor(password, secret, secret && encodeURIComponent(secret));
    const endpoint = maskUrl(describe(config));
    const query = sqlQuery(spec);
    const timeout = Math.max(1, ctx.timeoutMs);
    const c = new pg.Client({
      ...config,
      connectionTimeoutMillis: timeout,
      // the server stops the query too, rather than finishing work nobody reads
      statement_timeout: timeout,
      application_name: 'ops-console-health',
      types: ROW_TYPES,
    });
    client = c;
    c.on('error', () => {}); // a socket error after abort must not become an unhandled 'error' event
    const rows = new RowCollector();
    await abortable(
      (async () => {
        await c.connect();
        await new Promise<void>((resolve, reject) => {
          const q = new pg.Query(query);
          // a 'row' listener and no callback: pg streams rows instead of accumulating them
          q.on('row', (row: Record<string, unknown>) => rows.add(row));
          q.on('error', reject);
          q.on('end', () => resolve());
          c.query(q);
        });
      })(),
      ctx.signal,
      () => destroy(c),
    );
    const data = { rows: rows.rows, count: rows.count, truncated: rows.truncated };
    const detail = { endpoint, count: rows.count, rows: rows.rows.slice(0, 10) };
    const failure = sqlVerdict(spec, rows.count);
    if (failure) return failResult(start, failure, { data, detail });
    return passResult(start, { message: plural(rows.count, 'row'), data, detail });
  } catch (err) {
    return resultFromError(start, ctx, err, redact);
  } finally {
    if (client) void client.end().catch(() => {});
  }
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** pg's parsers, but int8 and numeric read as numbers (pg leaves both as strings to keep their precision). */
const ROW_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) {
      return (v: string) => {
        const n = Number(v);
        return Number.isSafeInteger(n) ? n : v;
      };
    }
    if (oid === NUMERIC_OID) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

function destroy(c: pg.Client) {
  (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/** Accepts `postgres://` / `postgresql://` URLs and libpq `key=value` strings, as lib/pq does. */
function clientConfig(conn: string, username?: string, password?: string): pg.ClientConfig {
  if (/^postgres(ql)?:\/\//i.test(conn)) {
    let url: URL;
    try {
      url = new URL(conn);
    } catch {
      throw new InvalidSpecError(`invalid postgres url: ${maskUrl(conn)}`);
    }
    if (username && !url.username) url.username = encodeURIComponent(username);
    if (password && !url.password) url.password = encodeURIComponent(password);
    return { connectionString: url.toString(), password: url.password ? decodeURIComponent(url.password) : undefined };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(conn)) {
    throw new InvalidSpecError(`unsupported scheme in ${maskUrl(conn)} (expected postgres:// or postgresql://)`);
  }
  const kv = parseKeyValue(conn);
  const cfg: pg.ClientConfig = {};
  for (const [k, v] of Object.entries(kv)) {
    switch (k) {
      case 'host':
      case 'hostaddr':
        cfg.host = v;
        break;
      case 'port':
        cfg.port = Number(v);
        if (!Number.isInteger(cfg.port)) throw new InvalidSpecError(`invalid port ${v}`);
        break;
      case 'user':
        cfg.user = v;
        break;
      case 'password':
        cfg.password = v;
        break;
      case 'dbname':
        cfg.database = v;
        break;
      case 'sslmode':
        cfg.ssl = v === 'disable' || v === 'allow' || v === 'prefer' ? false : { rejectUnauthorized: v === 'verify-full' || v === 'verify-ca' };
        break;
      default:
        // connect_timeout, application_name...: the check sets its own
        break;
    }
  }
  if (!cfg.host) throw new InvalidSpecError('connection string has no host (expected a postgres:// url or host=... key/values)');
  cfg.user ??= username;
  cfg.password ??= password;
  return cfg;
}

/** libpq `key=value key2='quoted value'` */
function parseKeyValue(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /\s*([a-zA-Z_]+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|(\S*))/y;
  let pos = 0;
  const text = s.trim();
  while (pos < text.length) {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) throw new InvalidSpecError('invalid connection string (expected a postgres:// url or key=value pairs)');
    out[m[1].toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3];
    pos = re.lastIndex;
    while (text[pos] === ' ') pos++;
  }
  return out;
}

function describe(cfg: pg.ClientConfig): string {
  if (cfg.connectionString) return cfg.connectionString;
  return `postgres://${cfg.user ?? ''}@${cfg.host ?? ''}:${cfg.port ?? 5432}/${cfg.database ?? ''}`;
}
