import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
import { closedPort, startHangingServer } from '../../../tests/fixtures/servers/tcp.js';
import { postgresCheck } from './postgres.js';

// The run's PostgreSQL (embedded, or the apt one via DATABASE_URL) from tests/server/global-setup.ts.
const adminUrl = new URL(inject('adminUrl'));
const PASSWORD = 'pg-check-s3cr3t!';
const ROLE = `health_check_${process.pid}`;

function url(user: string, password: string, db = 'postgres') {
  const u = new URL(adminUrl.toString());
  u.username = user;
  u.password = encodeURIComponent(password);
  u.pathname = `/${db}`;
  return u.toString();
}

const run = (spec: Parameters<typeof postgresCheck.run>[0], timeoutMs?: number) =>
  postgresCheck.run(postgresCheck.schema.parse(spec), checkContext(timeoutMs));

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP ROLE IF EXISTS ${ROLE}`);
  await admin.query(`CREATE ROLE ${ROLE} LOGIN PASSWORD '${PASSWORD}'`);
  await admin.end();
});

afterAll(async () => {
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP ROLE IF EXISTS ${ROLE}`);
  await admin.end();
});

describe('postgres check against a real PostgreSQL', () => {
  it('passes with the default query and exposes rows and count', async () => {
    const r = await run({ url: url(ROLE, PASSWORD) });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ pass: true, message: '1 row', data: { count: 1, rows: [{ '?column?': 1 }] } });
  });

  it('reads bigint and numeric columns as numbers, as the reference does (count(*) is a bigint)', async () => {
    const r = await run({
      url: url(ROLE, PASSWORD),
      query: "SELECT count(*) AS n, 2.5::numeric AS ratio, 9007199254740993::int8 AS huge, 'x'::text AS s FROM generate_series(1, 3)",
    });
    expect(r.data.rows).toEqual([{ n: 3, ratio: 2.5, huge: '9007199254740993', s: 'x' }]);
  });

  it('markFailOnEmpty fails a query that returns no rows, and only then', async () => {
    const empty = { url: url(ROLE, PASSWORD), query: 'SELECT 1 AS name LIMIT 0' };
    expect(await run(empty)).toMatchObject({ pass: true, message: '0 rows' });
    expect(await run({ ...empty, markFailOnEmpty: true })).toMatchObject({ pass: false, error: 'Query has returned empty value', data: { count: 0 } });
    expect(await run({ ...empty, query: 'SELECT 1 AS name', markFailOnEmpty: true })).toMatchObject({ pass: true });
  });

  it('fails when fewer rows than `results` come back, with the reference message', async () => {
    const spec = { url: url(ROLE, PASSWORD), query: 'SELECT g AS n FROM generate_series(1, 2) g', results: 3 };
    const r = await run(spec);
    expect(r.pass).toBe(false);
    expect(r.invalid).toBeFalsy();
    expect(r.error).toBe('Query returned 2 rows, expected 3');
    expect(r.data).toMatchObject({ count: 2, rows: [{ n: 1 }, { n: 2 }] });
    expect((await run({ ...spec, results: 2 })).pass).toBe(true);
  });

  it('counts every row of a large result but keeps only the first 1000', async () => {
    const r = await run({ url: url(ROLE, PASSWORD), query: 'SELECT g FROM generate_series(1, 20000) g', results: 20000 });
    expect(r.pass).toBe(true);
    expect(r.data.count).toBe(20000);
    expect((r.data.rows as unknown[]).length).toBe(1000);
    expect(r.data.truncated).toBe(true);
  });

  it('takes username/password fields into a url without credentials and into $(password) placeholders', async () => {
    const bare = new URL(adminUrl.toString());
    bare.username = '';
    bare.password = '';
    expect((await run({ url: bare.toString(), username: ROLE, password: { value: PASSWORD } })).pass).toBe(true);
    const templ = `postgres://$(username):$(password)@${adminUrl.host}/postgres`;
    expect((await run({ url: templ, username: ROLE, password: PASSWORD })).pass).toBe(true);
  });

  it('accepts a libpq key=value connection string in `connection`', async () => {
    const conn = `host=${adminUrl.hostname} port=${adminUrl.port} user=${ROLE} password='${PASSWORD}' dbname=postgres sslmode=disable`;
    const r = await run({ connection: conn, query: 'SELECT current_user AS who' });
    expect(r).toMatchObject({ pass: true, data: { rows: [{ who: ROLE }] } });
  });

  it('reports a SQL error as a failure', async () => {
    const r = await run({ url: url(ROLE, PASSWORD), query: 'SELEC nonsense' });
    expect(r.pass).toBe(false);
    expect(r.invalid).toBeFalsy();
    expect(r.error).toMatch(/syntax error/);
  });

  it('fails on a wrong password without echoing it', async () => {
    const r = await run({ url: url(ROLE, 'wrong-Secret-123') });
    expect(r.pass).toBe(false);
    expect(r.error).toMatch(/password authentication failed/);
    expect(JSON.stringify(r)).not.toContain('wrong-Secret-123');
    const ok = await run({ url: url(ROLE, PASSWORD) });
    expect(JSON.stringify(ok)).not.toContain(PASSWORD);
    expect(JSON.stringify(ok)).not.toContain(encodeURIComponent(PASSWORD));
  });
});

describe('postgres check target failures and bad specs', () => {
  it('fails (not invalid) when nothing listens', async () => {
    const port = await closedPort();
    const r = await run({ url: `postgres://u:p@127.0.0.1:${port}/db` });
    expect(r.pass).toBe(false);
    expect(r.invalid).toBeFalsy();
    expect(r.error).toMatch(/ECONNREFUSED/);
  });

  it('gives up on a server that never answers when the signal fires', async () => {
    const hang = await startHangingServer();
    try {
      const t0 = Date.now();
      const r = await run({ url: `postgres://u:topsecret@127.0.0.1:${hang.port}/db` }, 500);
      expect(r.pass).toBe(false);
      expect(r.error).toBe('timed out after 500 ms');
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(JSON.stringify(r)).not.toContain('topsecret');
    } finally {
      await hang.close();
    }
  });

  it.each([
    [{}, /url is required/],
    [{ url: 'mysql://u@h/db' }, /unsupported scheme/],
    [{ connection: 'connection://default/pg' }, /not resolved/],
    [{ connection: 'dbname=x' }, /no host/],
    [{ url: 'postgres://u@h/db', password: { valueFrom: { secretKeyRef: { name: 's', key: 'k' } } } }, /valueFrom/],
  ])('reports %j as invalid', async (spec, message) => {
    const r = await run(spec);
    expect(r).toMatchObject({ pass: false, invalid: true });
    expect(r.error).toMatch(message);
  });

  it('rejects a wrongly typed spec in its schema', () => {
    expect(postgresCheck.schema.safeParse({ query: 1 }).success).toBe(false);
    expect(postgresCheck.schema.safeParse({ results: -1 }).success).toBe(false);
  });
});
