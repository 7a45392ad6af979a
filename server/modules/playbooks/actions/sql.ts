import mysql from 'mysql2';
import pg from 'pg';
import { SqlAction } from '../../../contracts/playbook-actions/sql.js';
import { abortable } from '../../../lib/checks/lib/abort.js';
import { RowCollector } from '../../../lib/checks/lib/sql.js';
import { parseMysqlDsn } from '../../../lib/checks/mysql.js';
import { abortError, masked, remainingMs, useConnection } from './support.js';
import type { ActionContext, PlaybookActionType } from './types.js';

/**
 * The `sql` action (issue 14): runs `query` once on PostgreSQL or MySQL/MariaDB → `{query, rows, count, columns}`
 * (the reference's SQL action's result, plus `columns` in the order the server sent them and `truncated` past 1,000
 * rows). Values keep their JSON type (numbers, booleans, objects; times as ISO text) where the reference turns each
 * into text. The server is given the action's remaining time as its statement timeout; cancel and timeout close the
 * connection. A failing statement fails the action with the server's message; credentials are masked.
 */
type Driver = 'postgres' | 'mysql';

interface Outcome {
  rows: RowCollector;
  columns: string[];
}

/** pg's parsers, but int8 (count(*)) and numeric read as numbers where they fit, as the MySQL side reads them. */
const ROW_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) {
      return (v: string) => {
        const n = Number(v);
        return oid === 20 && !Number.isSafeInteger(n) ? v : n;
      };
    }
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

function driverOf(explicit: string | undefined, url: string, connType?: string): Driver {
  if (explicit === 'postgres' || explicit === 'mysql') return explicit;
  if (explicit) throw new Error(`sql: driver must be postgres or mysql (got ${explicit})`);
  if (/^postgres(ql)?:\/\//i.test(url) || /^postgres/i.test(connType ?? '')) return 'postgres';
  if (/^(mysql|mariadb):\/\//i.test(url) || /^(mysql|mariadb)/i.test(connType ?? '') || /@tcp\(/.test(url)) return 'mysql';
  throw new Error('sql: set driver (postgres or mysql): it cannot be told from the url');
}

/**
 * PostgreSQL connections kept between sql actions, one small pool per url (a new backend costs PostgreSQL ~5–40 ms of
 * CPU a connection on this hardware, more than the query). A pooled session is reset with DISCARD ALL before it goes
 * back (settings, temporary tables, prepared statements, advisory locks, LISTENs), and one left inside a transaction,
 * aborted, or that failed is closed instead. Each use sets the action's remaining time as its statement timeout.
 */
// at most MAX_POOLS × POOL_MAX idle sessions linger (32), each for POOL_IDLE_MS; more actions at once on one url wait
const POOL_MAX = 4;
const POOL_IDLE_MS = 5_000;
const MAX_POOLS = 8;
const pools = new Map<string, pg.Pool>();

function poolFor(url: string, connectMs: number): pg.Pool {
  let pool = pools.get(url);
  if (pool) {
    // most recently used last, so the oldest is the one closed past MAX_POOLS
    pools.delete(url);
    pools.set(url, pool);
    return pool;
  }
  pool = new pg.Pool({
    connectionString: url, max: POOL_MAX, idleTimeoutMillis: POOL_IDLE_MS, allowExitOnIdle: true,
    connectionTimeoutMillis: connectMs, application_name: 'ops-console-playbook', types: ROW_TYPES,
  });
  pool.on('error', () => {}); // an idle session the server ended: the pool drops it
  pools.set(url, pool);
  if (pools.size > MAX_POOLS) {
    const [oldest, p] = pools.entries().next().value as [string, pg.Pool];
    pools.delete(oldest);
    void p.end().catch(() => {});
  }
  return pool;
}

/** Closes the pooled PostgreSQL sessions (tests, shutdown). */
export async function closeSqlPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.end().catch(() => {})));
}

async function runPostgres(url: string, query: string, ctx: ActionContext): Promise<Outcome> {
  const timeout = remainingMs(ctx);
  const out: Outcome = { rows: new RowCollector(), columns: [] };
  let c: pg.PoolClient | null = null;
  let broken = false;
  try {
    await abortable((async () => {
      const got = await poolFor(url, timeout).connect();
      if (ctx.signal.aborted) {
        got.release(true); // aborted while connecting: the caller has moved on
        throw abortError(ctx.signal);
      }
      c = got;
      await c.query("SELECT set_config('statement_timeout', $1, false)", [String(Math.min(remainingMs(ctx), 2 ** 31 - 1))]);
      await new Promise<void>((resolve, reject) => {
        const q = new pg.Query(query);
        // a 'row' listener and no callback: pg streams rows instead of keeping them all
        q.on('row', (row: Record<string, unknown>, result?: pg.QueryResult) => {
          if (!out.columns.length && result?.fields) out.columns = result.fields.map((f) => f.name);
          out.rows.add(row);
        });
        q.on('error', reject);
        q.on('end', (result?: pg.QueryResult) => {
          if (!out.columns.length && result?.fields) out.columns = result.fields.map((f) => f.name);
          resolve();
        });
        c!.query(q);
      });
    })(), ctx.signal, () => {
      broken = true;
      (c as unknown as { connection?: { stream?: { destroy(): void } } } | null)?.connection?.stream?.destroy();
    });
  } catch (err) {
    broken = true;
    throw err;
  } finally {
    const held = c as pg.PoolClient | null;
    if (held) {
      if (broken) held.release(true);
      // DISCARD ALL fails inside a transaction the query left open: then the session is closed, not reused
      else void held.query('DISCARD ALL').then(() => held.release(), () => held.release(true));
    }
  }
  return out;
}

async function runMysql(url: string, query: string, ctx: ActionContext): Promise<Outcome> {
  const timeout = remainingMs(ctx);
  const c = mysql.createConnection({
    ...parseMysqlDsn(url), connectTimeout: timeout, multipleStatements: false, dateStrings: true, supportBigNumbers: true, decimalNumbers: true,
  });
  c.on('error', () => {});
  const out: Outcome = { rows: new RowCollector(), columns: [] };
  try {
    await abortable(new Promise<void>((resolve, reject) => {
      let isRowSet = false;
      c.query({ sql: query, timeout })
        .on('fields', (fields?: Array<{ name: string }>) => {
          // undefined precedes an OK packet (INSERT, UPDATE...): no rows, no columns
          isRowSet = fields !== undefined;
          if (fields) out.columns = fields.map((f) => f.name);
        })
        .on('result', (row: unknown) => {
          if (isRowSet) out.rows.add(row as Record<string, unknown>);
        })
        .on('error', reject)
        .on('end', () => resolve());
    }), ctx.signal, () => c.destroy());
  } finally {
    c.end(() => c.destroy());
    setTimeout(() => c.destroy(), 1000).unref();
  }
  return out;
}

async function runSql(block: Record<string, unknown>, ctx: ActionContext): Promise<Record<string, unknown>> {
  const spec = SqlAction.parse(block);
  let url = spec.url ?? '';
  let connType: string | undefined;
  const ref = spec.connection?.trim();
  if (ref && !/^(postgres(ql)?|mysql|mariadb):\/\//i.test(ref)) {
    const conn = await useConnection(ctx, ref);
    if (!url) url = conn.url;
    connType = conn.type;
    // a connection may keep its credentials in the columns, not in the url
    if (conn.username && url.includes('://') && !/:\/\/[^/@]*@/.test(url)) {
      url = url.replace('://', `://${encodeURIComponent(conn.username)}:${encodeURIComponent(conn.password)}@`);
    }
  } else if (ref && !url) url = ref;
  if (!url) throw new Error('sql: no url (set url, or a connection with a url)');
  const secrets: string[] = [];
  try {
    const pass = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? new URL(url).password : '';
    if (pass) secrets.push(decodeURIComponent(pass), pass);
  } catch {
    // a DSN (user:pw@tcp(host)/db): its password is found by the parser below
  }
  const driver = driverOf(spec.driver, url, connType);
  if (driver === 'mysql') {
    const p = parseMysqlDsn(url).password;
    if (p) secrets.push(p);
  }
  for (const s of secrets) ctx.addSecret(s);
  let out: Outcome;
  try {
    out = driver === 'postgres' ? await runPostgres(url, spec.query, ctx) : await runMysql(url, spec.query, ctx);
  } catch (err) {
    if (ctx.signal.aborted) throw abortError(ctx.signal);
    const e = err as Error & { code?: string };
    const message = e.message || e.code || String(err);
    throw new Error(`sql: ${masked(message, secrets)}`);
  }
  ctx.log('stdout', `${out.rows.count} row${out.rows.count === 1 ? '' : 's'}\n`);
  return {
    query: spec.query, rows: out.rows.rows, count: out.rows.count, columns: out.columns,
    ...(out.rows.truncated ? { truncated: true } : {}),
  };
}

export const sqlAction: PlaybookActionType = { type: 'sql', run: runSql };
