import mysql from 'mysql2';
import { abortable } from './lib/abort.js';
import { envValue, interpolateCredentials, targetUrl } from './lib/env-var.js';
import { InvalidSpecError, failResult, passResult, resultFromError, plural } from './lib/result.js';
import { maskUrl, redactor } from './lib/secrets.js';
import { RowCollector, SqlCheckSpec, sqlQuery, sqlVerdict } from './lib/sql.js';
import type { CheckContext, CheckResult, CheckType } from './types.js';

export const MysqlCheckSpec = SqlCheckSpec;
export type MysqlCheckSpec = SqlCheckSpec;

/**
 * `mysql`: connects with `mysql2` (go-mysql DSN `user:pw@tcp(host:port)/db` as the reference takes it, or a
 * `mysql://` URL), runs `query` (default `SELECT 1`) and fails when fewer than `results` rows come back.
 * `data` = `{ rows, count, truncated }`.
 */
export const mysqlCheck: CheckType<MysqlCheckSpec> = {
  type: 'mysql',
  schema: MysqlCheckSpec,
  run: runMysql,
};

async function runMysql(spec: MysqlCheckSpec, ctx: CheckContext): Promise<CheckResult> {
  const start = performance.now();
  let redact = (s: string) => s;
  let conn: mysql.Connection | undefined;
  try {
    const username = envValue(spec.username, 'username');
    const password = envValue(spec.password, 'password');
    const raw = interpolateCredentials(targetUrl(spec), username, password);
    const options = parseMysqlDsn(raw);
    options.user ??= username;
    options.password ??= password;
    redact = redactor(password, options.password, options.password && encodeURIComponent(options.password));
    const endpoint = options.socketPath ? `unix(${options.socketPath})/${options.database ?? ''}` : `${options.host}:${options.port}/${options.database ?? ''}`;
    const query = sqlQuery(spec);
    const c = mysql.createConnection({
      ...options,
      connectTimeout: Math.max(1, ctx.timeoutMs),
      // one statement per check, as database/sql runs it
      multipleStatements: false,
      dateStrings: true,
      // BIGINT (count(*)) and DECIMAL read as numbers, as the reference's rows; a BIGINT past 2^53 stays a string
      supportBigNumbers: true,
      decimalNumbers: true,
    });
    conn = c;
    c.on('error', () => {}); // errors after abort/close surface through the awaited promise, not as an unhandled event
    const rows = new RowCollector();
    await abortable(
      (async () => {
        await new Promise<void>((resolve, reject) => c.connect((err) => (err ? reject(err) : resolve())));
        await new Promise<void>((resolve, reject) => {
          let isRowSet = false;
          // without a callback mysql2 emits rows one by one instead of collecting them
          c.query(query)
            .on('fields', (fields: unknown) => {
              isRowSet = fields !== undefined; // undefined precedes an OK packet (INSERT/UPDATE...)
            })
            .on('result', (row: unknown) => {
              if (isRowSet) rows.add(row as Record<string, unknown>);
            })
            .on('error', reject)
            .on('end', () => resolve());
        });
      })(),
      ctx.signal,
      () => c.destroy(),
    );
    const data = { rows: rows.rows, count: rows.count, truncated: rows.truncated };
    const detail = { endpoint, count: rows.count, rows: rows.rows.slice(0, 10) };
    const failure = sqlVerdict(spec, rows.count);
    if (failure) return failResult(start, failure, { data, detail });
    return passResult(start, { message: plural(rows.count, 'row'), data, detail });
  } catch (err) {
    return resultFromError(start, ctx, err, redact);
  } finally {
    if (conn) closeQuietly(conn);
  }
}

function closeQuietly(c: mysql.Connection) {
  try {
    // a polite COM_QUIT when the connection is healthy; destroy covers a broken or half-open one
    c.end(() => c.destroy());
    setTimeout(() => c.destroy(), 1000).unref();
  } catch {
    c.destroy();
  }
}

interface MysqlTarget {
  host?: string;
  port?: number;
  socketPath?: string;
  user?: string;
  password?: string;
  database?: string;
  ssl?: { rejectUnauthorized: boolean };
}

/**
 * Parses a go-sql-driver DSN `[user[:password]@][net[(addr)]]/dbname[?params]` (the reference's format) or a
 * `mysql://user:pw@host:port/db` URL. Only the `tls` parameter is honoured (true / skip-verify / preferred).
 */
export function parseMysqlDsn(dsn: string): MysqlTarget {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(dsn)) {
    let url: URL;
    try {
      url = new URL(dsn);
    } catch {
      throw new InvalidSpecError(`invalid mysql url: ${maskUrl(dsn)}`);
    }
    if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
      throw new InvalidSpecError(`unsupported scheme in ${maskUrl(dsn)} (expected mysql:// or a user:pw@tcp(host:port)/db DSN)`);
    }
    return {
      host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
      port: url.port ? Number(url.port) : 3306,
      user: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
      database: decodeURIComponent(url.pathname.replace(/^\//, '')) || undefined,
      ssl: tls(url.searchParams.get('tls') ?? url.searchParams.get('ssl')),
    };
  }
  const slash = dsn.lastIndexOf('/');
  if (slash < 0) throw new InvalidSpecError('invalid mysql DSN: expected user:password@tcp(host:port)/dbname');
  const head = dsn.slice(0, slash);
  const [dbname, query = ''] = splitOnce(dsn.slice(slash + 1), '?');
  const at = head.lastIndexOf('@');
  const userinfo = at >= 0 ? head.slice(0, at) : '';
  const netaddr = at >= 0 ? head.slice(at + 1) : head;
  const target: MysqlTarget = { database: dbname || undefined };
  if (userinfo) {
    const [user, password] = splitOnce(userinfo, ':');
    target.user = user || undefined;
    target.password = password;
  }
  const m = /^([a-z0-9]*)(?:\((.*)\))?$/i.exec(netaddr);
  if (!m) throw new InvalidSpecError('invalid mysql DSN: expected user:password@tcp(host:port)/dbname');
  const [, net = '', addr = ''] = m;
  if (net === 'unix') {
    target.socketPath = addr || '/tmp/mysql.sock';
  } else if (net === '' || net === 'tcp' || net === 'tcp6') {
    const hp = /^(?:\[([^\]]+)\]|([^:]*))(?::(\d+))?$/.exec(addr);
    if (!hp) throw new InvalidSpecError(`invalid mysql address: ${addr}`);
    target.host = hp[1] ?? (hp[2] || '127.0.0.1');
    target.port = hp[3] ? Number(hp[3]) : 3306;
  } else {
    throw new InvalidSpecError(`unsupported mysql network "${net}" (expected tcp or unix)`);
  }
  target.ssl = tls(new URLSearchParams(query).get('tls'));
  return target;
}

function tls(v: string | null): MysqlTarget['ssl'] {
  if (!v || v === 'false') return undefined;
  return { rejectUnauthorized: v === 'true' };
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}
