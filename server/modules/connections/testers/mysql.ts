import mysql from 'mysql2';
import { abortable, hostPort, parseUrl, requireUrl, testFailure } from './lib.js';
import { ConnectionTestError, type Tester } from './types.js';

const AUTH_ERRORS = new Set(['ER_ACCESS_DENIED_ERROR', 'ER_DBACCESS_DENIED_ERROR', 'ER_NOT_SUPPORTED_AUTH_MODE']);

/**
 * mysql: connects with mysql2 to `url` (mysql://host:port/db, or the reference's go-mysql DSN
 * `user:pw@tcp(host:port)/db`), the username and password fields filling what it leaves out, and runs
 * `select version(), database(), current_user()` for the payload.
 */
export const mysqlTester: Tester = async (c, ctx) => {
  const opts = mysqlOptions(requireUrl(c, 'mysql://db.example:3306/app'));
  opts.user ??= c.username ?? undefined;
  opts.password ??= c.password ?? undefined;
  const target = `${opts.host}:${opts.port}`;
  const conn = mysql.createConnection({ ...opts, connectTimeout: ctx.timeoutMs, multipleStatements: false });
  conn.on('error', () => {});
  try {
    const rows = await abortable(
      new Promise<Array<Record<string, unknown>>>((resolve, reject) =>
        conn.query('select version() as version, database() as `database`, current_user() as user', (err, r) =>
          err ? reject(err) : resolve(r as Array<Record<string, unknown>>),
        ),
      ),
      ctx.signal,
      () => conn.destroy(),
    );
    return { ...rows[0] };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code && AUTH_ERRORS.has(code)) throw new ConnectionTestError(`authentication failed: ${(err as Error).message}`);
    if (code === 'ER_BAD_DB_ERROR') throw new ConnectionTestError(`database not found: ${(err as Error).message}`);
    throw testFailure(err, target, `mysql ${target}`);
  } finally {
    conn.destroy();
  }
};

interface MysqlOptions {
  host: string;
  port: number;
  user?: string;
  password?: string;
  database?: string;
}

function mysqlOptions(raw: string): MysqlOptions {
  const dsn = /^(?:([^:@]*)(?::(.*))?@)?tcp\(([^)]+)\)\/([^?]*)/.exec(raw);
  if (dsn) {
    const [host, port] = dsn[3].split(':');
    return { host, port: Number(port) || 3306, user: dsn[1] || undefined, password: dsn[2] || undefined, database: dsn[4] || undefined };
  }
  const u = parseUrl(raw, ['mysql', 'mariadb']);
  const [host, port] = hostPort(u, 3306).split(/:(?=\d+$)/);
  return {
    host: host.replace(/^\[|\]$/g, ''),
    port: Number(port),
    user: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined,
  };
}
