import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../server/db/embedded.js';

// startEmbeddedPostgres in-process: what a previous run may leave in DATA_DIR. (Kills and restarts of the real
// server are in embedded-lifecycle.test.ts.)
const quiet = { info() {}, warn() {}, debug() {} };
const isRoot = process.getuid?.() === 0;
let dir: string;
let db: EmbeddedDatabase | undefined;

async function count(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query('SELECT count(*)::int AS n FROM pg_database')).rows[0].n as number;
  } finally {
    await c.end();
  }
}

describe.skipIf(!!process.env.DATABASE_URL)('embedded PostgreSQL start-up', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'console-embedded-'));
  });
  afterAll(async () => {
    await db?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('initialises a UTF-8 cluster with a console database, and stops cleanly', async () => {
    db = await startEmbeddedPostgres(dir, 0, quiet);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const { rows } = await c.query("SELECT current_database() AS db, pg_encoding_to_char(encoding) AS enc, upper('é') AS up FROM pg_database WHERE datname = current_database()");
    await c.end();
    expect(rows[0]).toEqual({ db: 'console', enc: 'UTF8', up: 'É' });
    // the URL goes through the unix socket (no client address); its host and port still reach the TCP listener
    expect(db.socketDir).toBe(join(dir, 'run'));
    const viaSocket = new pg.Client({ connectionString: db.url });
    await viaSocket.connect();
    const unix = await viaSocket.query('SELECT inet_client_addr() AS addr').finally(() => viaSocket.end());
    expect(unix.rows[0].addr).toBeNull();
    const tcpUrl = new URL(db.url);
    tcpUrl.search = '';
    const viaTcp = new pg.Client({ connectionString: tcpUrl.toString() });
    await viaTcp.connect();
    const tcp = await viaTcp.query('SELECT inet_client_addr()::text AS addr').finally(() => viaTcp.end());
    expect(tcp.rows[0].addr).toBe('127.0.0.1/32');
    await db.stop();
    await db.stop(); // idempotent
    expect(() => readFileSync(join(dir, 'pg', 'postmaster.pid'))).toThrow();
  });

  it('moves to another port when the remembered one is taken, and remembers the new one', async () => {
    const before = Number(readFileSync(join(dir, 'pg-port'), 'utf8'));
    const squatter = createServer();
    await new Promise<void>((ok) => squatter.listen(before, '127.0.0.1', ok));
    try {
      db = await startEmbeddedPostgres(dir, 0, quiet);
      expect(db.port).not.toBe(before);
      expect(Number(readFileSync(join(dir, 'pg-port'), 'utf8'))).toBe(db.port);
      expect(await count(db.url)).toBeGreaterThanOrEqual(3);
    } finally {
      squatter.close();
      await db?.stop();
    }
  });

  it.skipIf(!isRoot)('starts although postmaster.pid names a live process that reused the pid', async () => {
    // A process of the postgres user with that pid would make PostgreSQL refuse to start ("lock file already exists").
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    const impostor = spawn('sleep', ['30'], { uid, gid, stdio: 'ignore' });
    try {
      const file = join(dir, 'pg', 'postmaster.pid');
      writeFileSync(file, `${impostor.pid}\n${join(dir, 'pg')}\n1700000000\n5432\n\n127.0.0.1\n  1234  5678\nready   \n`);
      db = await startEmbeddedPostgres(dir, 0, quiet);
      expect(await count(db.url)).toBeGreaterThanOrEqual(3);
      expect(Number(readFileSync(file, 'utf8').split('\n')[0])).not.toBe(impostor.pid);
    } finally {
      impostor.kill('SIGKILL');
      await db?.stop();
    }
  });
});
