// The exec action's spawner (issue 14): a small long-lived node process per console replica that starts the scripts.
// Starting a process from the console itself costs its whole heap in fork() and node's stream set-up on its main
// thread; from here, with posix_spawn (./exec-posix-spawn.mjs), about 1 ms; with node's child_process (where
// posix_spawn is not available, or PLAYBOOK_EXEC_SPAWNER=child_process) about 7. Plain JavaScript (no loader), started
// by ./exec-process.ts with an empty environment.
// Frames on stdin/stdout: type (1 byte), request id (uint32 BE), payload length (uint32 BE), payload; a payload is a
// list of fields, each a uint32 BE length and its bytes, except O/e (raw output bytes).
//   in:  S spawn [command, cwd, argc, args…, env name, value, …] · K stop the group (SIGTERM, SIGKILL after the grace)
//        T make a temporary tree [prefix, dir count, dirs…, (path, mode, text)…] · R remove a tree [path]
//        I which spawn it uses → D [posix_spawn | child_process]
//   out: P started [pid] · E failed [message, errno name] · O stdout bytes · e stderr bytes
//        X exit [code or '', signal number or ''] · C closed (its pipes, or the pipe grace passed) · D done [path?]
// Stdin's end (the console is gone) stops every group it started, then this process.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { fields, readFields } from './exec-frames.mjs';
import { loadPosixSpawn } from './exec-posix-spawn.mjs';

const KILL_GRACE_MS = Number(process.argv[2]) || 2_000;
const PIPE_GRACE_MS = Number(process.argv[3]) || 1_000;
/** posix_spawn where it works (./exec-posix-spawn.mjs), unless the console asks for child_process. */
const native = process.argv[4] === 'child_process' ? null : loadPosixSpawn();
const HEADER = 9;
/** id → { child, pid, killTimer, pipeTimer, done } */
const procs = new Map();
/** Groups between SIGTERM and SIGKILL (their script may have ended). */
const stopping = new Set();
let paused = false;

const fail = (id, e) => send('E', id, fields(e.message, e.code ?? ''));

function send(type, id, payload) {
  const body = payload ?? Buffer.alloc(0);
  const head = Buffer.allocUnsafe(HEADER);
  head.write(type, 0, 'latin1');
  head.writeUInt32BE(id, 1);
  head.writeUInt32BE(body.length, 5);
  const ok = process.stdout.write(body.length ? Buffer.concat([head, body]) : head);
  if (!ok && !paused) {
    // the console reads slower than the scripts write: hold their output until the pipe drains
    paused = true;
    for (const p of procs.values()) { p.child.stdout?.pause(); p.child.stderr?.pause(); }
    process.stdout.once('drain', () => {
      paused = false;
      for (const p of procs.values()) { p.child.stdout?.resume(); p.child.stderr?.resume(); }
    });
  }
}

function signalGroup(pid, sig) {
  try {
    process.kill(-pid, sig);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the group now, SIGKILL after the grace (kept after the script ended: a member that ignores SIGTERM). */
function stopGroup(p) {
  if (!p.pid || p.killTimer || !signalGroup(p.pid, 'SIGTERM')) return;
  const pid = p.pid;
  stopping.add(pid);
  p.killTimer = setTimeout(() => {
    stopping.delete(pid);
    signalGroup(pid, 'SIGKILL');
  }, KILL_GRACE_MS);
}

/** child_process's spawn in the shape of ./exec-posix-spawn.mjs's; errors come by onError (ENOENT is asynchronous). */
function childProcessSpawn(command, args, cwd, env) {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  return {
    pid: child.pid,
    stdout: child.stdout,
    stderr: child.stderr,
    onExit: (cb) => child.on('exit', (code, signal) => cb(code, signal ? constants.signals[signal] ?? null : null)),
    onError: (cb) => child.on('error', cb),
  };
}

function start(id, f) {
  const [command, cwd, argc] = f;
  const args = f.slice(3, 3 + Number(argc));
  const env = {};
  for (let i = 3 + args.length; i + 1 < f.length; i += 2) env[f[i]] = f[i + 1];
  let child;
  try {
    child = native ? native.spawn(command, args, cwd, env) : childProcessSpawn(command, args, cwd, env);
  } catch (e) {
    fail(id, e);
    return;
  }
  const p = { child, pid: child.pid, killTimer: null, pipeTimer: null, done: false };
  procs.set(id, p);
  let open = 2;
  let exited = false;
  const finish = () => {
    if (p.done) return;
    p.done = true;
    clearTimeout(p.pipeTimer);
    child.stdout.destroy();
    child.stderr.destroy();
    procs.delete(id);
    send('C', id);
  };
  child.onError?.((e) => {
    if (p.done) return;
    p.done = true;
    procs.delete(id);
    if (p.killTimer) clearTimeout(p.killTimer);
    fail(id, e);
  });
  if (!child.pid) return; // child_process: 'error' follows
  send('P', id, fields(child.pid));
  if (paused) { child.stdout.pause(); child.stderr.pause(); }
  for (const [stream, type] of [[child.stdout, 'O'], [child.stderr, 'e']]) {
    stream.on('data', (c) => send(type, id, c));
    stream.on('error', () => undefined); // 'close' follows
    stream.on('close', () => {
      if (--open === 0 && exited) finish();
    });
  }
  child.onExit((code, signal) => {
    exited = true;
    send('X', id, fields(code ?? '', signal ?? ''));
    // the script is done: whatever it left running in its group goes too
    stopGroup(p);
    if (open === 0) {
      finish();
      return;
    }
    // a grandchild that left the group may hold the pipes open: stop waiting for them after the kill grace
    p.pipeTimer = setTimeout(finish, KILL_GRACE_MS + PIPE_GRACE_MS);
  });
}

function tree(id, [prefix, ndirs, ...rest]) {
  try {
    const base = mkdtempSync(prefix);
    for (const d of rest.splice(0, Number(ndirs))) mkdirSync(join(base, d), { mode: 0o700 });
    for (let i = 0; i + 2 < rest.length; i += 3) writeFileSync(join(base, rest[i]), rest[i + 2], { mode: Number(rest[i + 1]) });
    send('D', id, fields(base));
  } catch (e) {
    fail(id, e);
  }
}

function remove(id, [path]) {
  try {
    rmSync(path, { recursive: true, force: true, maxRetries: 2 });
    send('D', id);
  } catch (e) {
    fail(id, e);
  }
}

let buf = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
  while (buf.length >= HEADER) {
    const len = buf.readUInt32BE(5);
    if (buf.length < HEADER + len) break;
    const type = String.fromCharCode(buf[0]);
    const id = buf.readUInt32BE(1);
    const body = buf.subarray(HEADER, HEADER + len);
    buf = buf.subarray(HEADER + len);
    if (type === 'K') {
      const p = procs.get(id);
      if (p) stopGroup(p);
      continue;
    }
    const f = readFields(body);
    if (type === 'S') start(id, f);
    else if (type === 'T') tree(id, f);
    else if (type === 'R') remove(id, f);
    else if (type === 'I') send('D', id, fields(native ? 'posix_spawn' : 'child_process'));
    else fail(id, { message: `unknown request ${type}` });
  }
});

// the console is gone (or closed us): nothing it started may outlive it
function killAll() {
  for (const p of procs.values()) if (p.pid) signalGroup(p.pid, 'SIGKILL');
  for (const pid of stopping) signalGroup(pid, 'SIGKILL');
  process.exit(0);
}
process.stdin.on('end', killAll);
process.stdout.on('error', killAll);
