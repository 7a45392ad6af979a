import pg from 'pg';
import { abortable, hostPort, parseUrl, requireUrl, testFailure } from './lib.js';
import { ConnectionTestError, type Tester } from './types.js';

/**
 * postgres: connects to `url` (postgres:// or postgresql://; the username and password fields fill what the url
 * leaves out) and runs `select version(), current_database(), current_user`, which become the payload.
 */
export const postgresTester: Tester = async (c, ctx) => {
  const u = parseUrl(requireUrl(c, 'postgres://db.example:5432/app'), ['postgres', 'postgresql']);
  const target = hostPort(u, 5432);
  // pg lets the connection string's (absent) credentials win over options: put the fields into the url instead
  if (!u.username && c.username) u.username = encodeURIComponent(c.username);
  if (!u.password && c.password) u.password = encodeURIComponent(c.password);
  const client = new pg.Client({
    connectionString: u.toString(),
    connectionTimeoutMillis: ctx.timeoutMs,
    statement_timeout: ctx.timeoutMs,
    application_name: 'ops-console-connection-test',
  });
  client.on('error', () => {}); // a socket error after abort must not become an unhandled 'error' event
  try {
    const { rows } = await abortable(
      client.connect().then(() => client.query<{ version: string; database: string; user: string }>(
        'select version() as version, current_database() as database, current_user as user',
      )),
      ctx.signal,
      () => (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy(),
    );
    return { ...rows[0] };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === '28P01' || code === '28000') throw new ConnectionTestError(`authentication failed: ${(err as Error).message}`);
    if (code === '3D000') throw new ConnectionTestError(`database not found: ${(err as Error).message}`);
    throw testFailure(err, target, `postgres ${target}`);
  } finally {
    void client.end().catch(() => {});
  }
};
