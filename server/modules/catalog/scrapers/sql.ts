import mysql from 'mysql2/promise';
import pg from 'pg';
import { SqlScraper } from '../../../contracts/catalog.js';
import { abortable } from '../../../lib/checks/lib/abort.js';
import { interpolateCredentials } from '../../../lib/checks/lib/env-var.js';
import { parseMysqlDsn } from '../../../lib/checks/mysql.js';
import { extractDocuments } from '../extract.js';
import { emptyResult, type ScrapeContext, type ScrapeResult, type ScraperType } from '../types.js';
import { masked, safeUrl, withConnection, withValues } from './connection.js';

/**
 * `spec.sql[]`: `query` against `connection` (a `postgres://` or `mysql://` URL, a go-mysql DSN, or
 * `connection://<namespace>/<name>`), `driver` postgres|mysql (else read from the URL's scheme); `auth` username and
 * password (EnvVars) fill `$(username)`/`$(password)` in the URL. Each row is one document for extract.ts (`id: $.id`).
 * Unreachable, refused or slower than the run's timeout: an error and a partial run.
 */

/** Rows read at most; a query returning more is an error (the run is partial), not a silent cut. */
export const MAX_ROWS = 50_000;

type Obj = Record<string, unknown>;
const valueOf = (v: unknown): string | undefined => (v && typeof v === 'object' && typeof (v as Obj).value === 'string' ? (v as Obj).value as string : undefined);

function driverOf(url: string, given?: string): 'postgres' | 'mysql' | null {
  if (given === 'postgres' || given === 'mysql') return given;
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  if (/^mysql:\/\//i.test(url) || /@tcp\(|@unix\(/.test(url)) return 'mysql';
  return null;
}

/** Rows as JSON (dates as ISO text, int8 and decimals as pg/mysql2 give them, buffers as base64). */
const jsonRow = (row: Obj): Obj => JSON.parse(JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));

async function queryPostgres(url: string, query: string, signal: AbortSignal): Promise<Obj[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 30_000 });
  client.on('error', () => {}); // an error after abort surfaces through the awaited query
  try {
    return await abortable((async () => {
      await client.connect();
      const res = await client.query(query);
      return res.rows as Obj[];
    })(), signal, () => void client.end().catch(() => {}));
  } finally {
    await client.end().catch(() => {});
  }
}

async function queryMysql(url: string, query: string, signal: AbortSignal): Promise<Obj[]> {
  const options = parseMysqlDsn(url);
  const conn = await abortable(mysql.createConnection({ ...options, connectTimeout: 30_000, multipleStatements: false, dateStrings: true, supportBigNumbers: true, decimalNumbers: true }), signal, () => {});
  conn.on('error', () => {});
  try {
    const [rows] = await abortable(conn.query(query), signal, () => conn.destroy());
    if (!Array.isArray(rows)) throw new Error('the query returned no rows (not a SELECT)');
    return rows as Obj[];
  } finally {
    await conn.end().catch(() => {});
  }
}

async function scrapeSql(ctx: ScrapeContext, raw: Record<string, unknown>): Promise<ScrapeResult> {
  // what the source returns is all it has: an item it no longer returns is gone (the engine acts on it only when complete)
  const result: ScrapeResult = { ...emptyResult(), deleteMissing: true };
  const block = SqlScraper.parse(raw);
  const fail = (msg: string) => {
    result.errors.push(msg);
    result.complete = false;
    return result;
  };
  let secrets: string[] = [];
  let url = block.connection;
  let username: string | undefined;
  let password: string | undefined;
  try {
    const auth = await withValues(ctx, { username: block.auth?.username, password: block.auth?.password });
    secrets = auth.secrets;
    username = valueOf(auth.spec.username);
    password = valueOf(auth.spec.password);
    if (url.startsWith('connection://')) {
      const merged = await withConnection(ctx, block.driver === 'mysql' ? 'mysql' : 'postgres', { connection: url });
      secrets.push(...merged.secrets);
      url = String(merged.spec.url ?? '');
      username ??= merged.spec.username as string | undefined;
      password ??= merged.spec.password as string | undefined;
    }
  } catch (err) {
    return fail(masked((err as Error).message, secrets));
  }
  if (password) secrets.push(password, encodeURIComponent(password));
  url = interpolateCredentials(url, username, password);
  const driver = driverOf(url, block.driver);
  const where = safeUrl(url);
  if (!driver) return fail(`${where}: set driver (postgres or mysql); the connection does not say which`);
  // credentials given apart from a URL without userinfo go into it, as database/sql DSNs carry them
  if (username && /^[a-z]+:\/\/[^@/]+\//i.test(url) && !/^[a-z]+:\/\/[^/]*@/i.test(url)) {
    url = url.replace('://', `://${encodeURIComponent(username)}${password ? `:${encodeURIComponent(password)}` : ''}@`);
  }
  let rows: Obj[];
  try {
    rows = driver === 'postgres' ? await queryPostgres(url, block.query, ctx.signal) : await queryMysql(url, block.query, ctx.signal);
  } catch (err) {
    const reason = ctx.signal.aborted ? 'timed out' : (err as Error).message;
    return fail(masked(`${driver} ${where}: ${reason}`, secrets));
  }
  if (rows.length > MAX_ROWS) return fail(`${driver} ${where}: the query returned ${rows.length} rows (at most ${MAX_ROWS})`);
  const out = await extractDocuments(block, rows.map((row, i) => ({ config: jsonRow(row), source: `row ${i}` })));
  result.items = out.items;
  result.changes = out.changes;
  result.relationships = out.relationships;
  result.errors.push(...out.errors.map((e) => masked(e, secrets)));
  if (out.errors.length) result.complete = false;
  return result;
}

export const sqlScraper: ScraperType = { key: 'sql', scrape: scrapeSql };
