import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
import { mariadbMissing, startMariaDb, type MariaDb } from '../../../tests/fixtures/servers/mariadb.js';
import { closedPort, startHangingServer } from '../../../tests/fixtures/servers/tcp.js';
import { mysqlCheck, parseMysqlDsn } from './mysql.js';

const run = (spec: Parameters<typeof mysqlCheck.run>[0], timeoutMs?: number) =>
  mysqlCheck.run(mysqlCheck.schema.parse(spec), checkContext(timeoutMs));

describe('parseMysqlDsn', () => {
  it('reads go-mysql DSNs the way go-sql-driver does', () => {
    expect(parseMysqlDsn('user:p@ss:w/rd@tcp(db.local:3307)/app?tls=skip-verify')).toEqual({
      user: 'user',
      password: 'p@ss:w/rd',
      host: 'db.local',
      port: 3307,
      database: 'app',
      ssl: { rejectUnauthorized: false },
    });
    expect(parseMysqlDsn('root@tcp([::1]:3306)/')).toMatchObject({ user: 'root', host: '::1', port: 3306, database: undefined });
    expect(parseMysqlDsn('/db')).toMatchObject({ host: '127.0.0.1', port: 3306, database: 'db' });
    expect(parseMysqlDsn('u:p@unix(/run/mysqld/mysqld.sock)/db')).toMatchObject({ socketPath: '/run/mysqld/mysqld.sock', database: 'db' });
    expect(parseMysqlDsn('mysql://u:p%40x@h:3310/d')).toMatchObject({ user: 'u', password: 'p@x', host: 'h', port: 3310, database: 'd' });
  });

  it.each(['user:pw@tcp(host:3306)', 'u:p@pipe(x)/db', 'postgres://u@h/db'])('rejects %s', (dsn) => {
    expect(() => parseMysqlDsn(dsn)).toThrow(/mysql|network|scheme/);
  });
});

describe.skipIf(mariadbMissing)(`mysql check against a real MariaDB${mariadbMissing ? ` (skipped: ${mariadbMissing})` : ''}`, () => {
  let db: MariaDb;
  beforeAll(async () => {
    db = await startMariaDb();
  }, 180_000);
  afterAll(async () => {
    await db?.stop();
  }, 60_000);

  const dsn = (password = db.password) => `${db.user}:${password}@tcp(127.0.0.1:${db.port})/${db.database}`;

  it('passes with the default query against a go-mysql DSN', async () => {
    const r = await run({ url: dsn() });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ pass: true, data: { count: 1, rows: [{ '1': 1 }] } });
  });

  it('works with a mysql:// URL and username/password fields', async () => {
    const r = await run({
      url: `mysql://127.0.0.1:${db.port}/${db.database}`,
      username: db.user,
      password: { value: db.password },
      query: 'SELECT DATABASE() AS db, CURRENT_USER() AS who',
    });
    expect(r).toMatchObject({ pass: true, data: { rows: [{ db: db.database, who: `${db.user}@%` }] } });
  });

  it('fails when fewer rows than `results` come back', async () => {
    const query = 'SELECT seq AS n FROM seq_1_to_2';
    const r = await run({ url: dsn(), query, results: 3 });
    expect(r.pass).toBe(false);
    expect(r.error).toBe('Query returned 2 rows, expected 3');
    expect(r.data).toMatchObject({ count: 2, rows: [{ n: 1 }, { n: 2 }] });
    expect((await run({ url: dsn(), query, results: 2 })).pass).toBe(true);
  });

  it('reads BIGINT and DECIMAL columns as numbers, as the reference does (count(*) is a BIGINT)', async () => {
    const r = await run({ url: dsn(), query: 'SELECT COUNT(*) AS n, CAST(2.5 AS DECIMAL(4,2)) AS ratio, 9007199254740993 AS huge FROM seq_1_to_3' });
    expect(r.data.rows).toEqual([{ n: 3, ratio: 2.5, huge: '9007199254740993' }]);
  });

  it('streams a large result: counts all rows, keeps 1000', async () => {
    const r = await run({ url: dsn(), query: 'SELECT seq FROM seq_1_to_30000', results: 30000 });
    expect(r.pass).toBe(true);
    expect(r.data).toMatchObject({ count: 30000, truncated: true });
    expect((r.data.rows as unknown[]).length).toBe(1000);
  });

  it('does not count the OK packet of a statement that returns no rows', async () => {
    const r = await run({ url: dsn(), query: 'DO 1', results: 1 });
    expect(r).toMatchObject({ pass: false, data: { count: 0 } });
  });

  it('reports a SQL error as a failure', async () => {
    const r = await run({ url: dsn(), query: 'SELEC 1' });
    expect(r.pass).toBe(false);
    expect(r.invalid).toBeFalsy();
    expect(r.error).toMatch(/SQL syntax/);
  });

  it('fails on a wrong password without echoing either password', async () => {
    const r = await run({ url: dsn('Wrong-Pa55word') });
    expect(r.pass).toBe(false);
    expect(r.error).toMatch(/Access denied/);
    expect(JSON.stringify(r)).not.toContain('Wrong-Pa55word');
    expect(JSON.stringify(await run({ url: dsn() }))).not.toContain(db.password);
  });
});

describe('mysql check target failures and bad specs', () => {
  it('fails (not invalid) when nothing listens', async () => {
    const port = await closedPort();
    const r = await run({ url: `u:p@tcp(127.0.0.1:${port})/db` });
    expect(r).toMatchObject({ pass: false });
    expect(r.invalid).toBeFalsy();
    expect(r.error).toMatch(/ECONNREFUSED/);
  });

  it('gives up on a server that never sends its handshake', async () => {
    const hang = await startHangingServer();
    try {
      const t0 = Date.now();
      const r = await run({ url: `u:hushhush@tcp(127.0.0.1:${hang.port})/db` }, 500);
      expect(r).toMatchObject({ pass: false, error: 'timed out after 500 ms' });
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(JSON.stringify(r)).not.toContain('hushhush');
    } finally {
      await hang.close();
    }
  });

  it.each([[{}], [{ url: 'user:pw@tcp(host:3306)' }], [{ url: 'http://h/db' }], [{ connection: 'connection://ns/mysql' }]])(
    'reports %j as invalid',
    async (spec) => {
      expect(await run(spec)).toMatchObject({ pass: false, invalid: true });
    },
  );
});
