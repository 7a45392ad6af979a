import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mariadbMissing, startMariaDb, type MariaDb } from '../../../../tests/fixtures/servers/mariadb.js';
import { sqlAction } from './sql.js';
import { createTestDb, insertConnection, testContext, type TestDb } from './test-context.js';

let db: TestDb;
let maria: MariaDb | undefined;

beforeAll(async () => {
  db = await createTestDb();
  await db.pool.query(`CREATE ROLE playbook_sql LOGIN PASSWORD 'pg-S3cret!'`).catch(() => {});
  await db.pool.query(`GRANT pg_read_all_data TO playbook_sql`).catch(() => {});
  if (!mariadbMissing) maria = await startMariaDb({ password: 'maria-Pl4ybook' });
}, 180_000);

afterAll(async () => {
  await maria?.stop();
  await db.close();
});

const pgUrl = () => {
  const u = new URL(db.url);
  u.username = 'playbook_sql';
  u.password = 'pg-S3cret!';
  return u.toString();
};

describe('sql action on PostgreSQL', () => {
  it('runs a query: rows, count, columns, the password to the masker', async () => {
    const ctx = testContext(db.pool);
    const result = await sqlAction.run({ driver: 'postgres', url: pgUrl(), query: `SELECT 1 AS n, 'a' AS s UNION ALL SELECT 2, NULL` }, ctx);
    expect(result).toEqual({ query: `SELECT 1 AS n, 'a' AS s UNION ALL SELECT 2, NULL`, rows: [{ n: 1, s: 'a' }, { n: 2, s: null }], count: 2, columns: ['n', 's'] });
    expect(ctx.secrets).toContain('pg-S3cret!');
  });

  it('takes a connection (credentials in its columns) and tells the driver from the url', async () => {
    const u = new URL(db.url);
    const plain = `postgres://${u.host}${u.pathname}`;
    await insertConnection(db.pool, { name: 'pgdb', namespace: 'ops', type: 'postgres', url: plain, username: 'playbook_sql', password: 'pg-S3cret!' });
    const ctx = testContext(db.pool);
    const result = await sqlAction.run({ connection: 'connection://ops/pgdb', query: 'SELECT count(*) AS c FROM connections' }, ctx);
    expect(result).toMatchObject({ count: 1, rows: [{ c: 1 }], columns: ['c'] });
    expect(ctx.secrets).toContain('pg-S3cret!');
  });

  it('fails on bad SQL with the server message, never the password', async () => {
    const p = sqlAction.run({ url: pgUrl(), query: 'SELEC nope' }, testContext(db.pool));
    await expect(p).rejects.toThrow(/sql: syntax error at or near "SELEC"/);
  });

  it('fails when the server refuses the connection (password masked)', async () => {
    const err = await sqlAction.run({ url: 'postgres://playbook_sql:pg-S3cret!@127.0.0.1:1/x', query: 'SELECT 1' }, testContext(db.pool)).catch((e: Error) => e);
    expect(String(err)).toMatch(/ECONNREFUSED/);
    expect(String(err)).not.toContain('pg-S3cret!');
  });

  it('stops a long query on cancel, and at the deadline (statement timeout)', async () => {
    const ctx = testContext(db.pool);
    const p = sqlAction.run({ url: pgUrl(), query: 'SELECT pg_sleep(30)' }, ctx);
    setTimeout(() => ctx.controller.abort(new Error('cancelled')), 500);
    await expect(p).rejects.toThrow('cancelled');
    const short = testContext(db.pool, { timeoutMs: 1500 });
    await expect(sqlAction.run({ url: pgUrl(), query: 'SELECT pg_sleep(30)' }, short)).rejects.toThrow(/statement timeout/);
  });
});

describe('sql action: pooled PostgreSQL sessions', () => {
  const pidOf = async (query = 'SELECT pg_backend_pid() AS pid') => {
    const r = await sqlAction.run({ url: pgUrl(), query }, testContext(db.pool));
    await new Promise((res) => setTimeout(res, 150)); // the session goes back after its DISCARD ALL
    return (r.rows as Array<{ pid: number }>)[0]?.pid;
  };

  it('reuses a session, reset between actions (settings, temporary tables); one left in a transaction is closed', async () => {
    const first = await pidOf();
    expect(await pidOf()).toBe(first);
    await pidOf(`SELECT set_config('search_path', 'nowhere', false), pg_backend_pid() AS pid`);
    await pidOf('CREATE TEMP TABLE kept_between (x int)');
    const seen = await sqlAction.run({ url: pgUrl(), query: `SELECT current_setting('search_path') AS sp, to_regclass('pg_temp.kept_between') AS t, pg_backend_pid() AS pid` }, testContext(db.pool));
    expect(seen.rows).toEqual([{ sp: '"$user", public', t: null, pid: first }]);
    await new Promise((res) => setTimeout(res, 150));
    await pidOf('BEGIN; SELECT 1');
    const after = await pidOf(`SELECT pg_backend_pid() AS pid, now() = statement_timestamp() AS fresh`);
    expect(after).not.toBe(first);
  });
});

describe.skipIf(!!mariadbMissing)('sql action on MariaDB', () => {
  const url = () => `mysql://${maria!.user}:${encodeURIComponent(maria!.password)}@127.0.0.1:${maria!.port}/${maria!.database}`;

  it('runs a query by url and by connection', async () => {
    const ctx = testContext(db.pool);
    const result = await sqlAction.run({ driver: 'mysql', url: url(), query: 'SELECT 1 AS n, CONCAT(\'x\', \'y\') AS s' }, ctx);
    expect(result).toMatchObject({ rows: [{ n: 1, s: 'xy' }], count: 1, columns: ['n', 's'] });
    expect(ctx.secrets).toContain('maria-Pl4ybook');

    await insertConnection(db.pool, { name: 'maria', type: 'mysql', url: `${maria!.user}:${maria!.password}@tcp(127.0.0.1:${maria!.port})/${maria!.database}` });
    const c2 = testContext(db.pool);
    expect(await sqlAction.run({ connection: 'maria', query: 'SELECT 2 AS n' }, c2)).toMatchObject({ rows: [{ n: 2 }] });
    expect(c2.secrets).toContain('maria-Pl4ybook');
  });

  it('fails on bad SQL and stops a long query on cancel', async () => {
    await expect(sqlAction.run({ url: url(), query: 'SELEC 1' }, testContext(db.pool))).rejects.toThrow(/You have an error in your SQL syntax/);
    const ctx = testContext(db.pool);
    const p = sqlAction.run({ url: url(), query: 'SELECT SLEEP(30)' }, ctx);
    setTimeout(() => ctx.controller.abort(new Error('cancelled')), 500);
    await expect(p).rejects.toThrow('cancelled');
  });
});
