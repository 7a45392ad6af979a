// The exec action's spawner (issue 14): a small long-lived node process per console replica that starts the scripts.
// Starting a process from the console itself costs its whole heap in fork() and node's stream set-up on its main
// thread; from here it costs a few MB. Plain JavaScript (no loader), started by ./exec-process.ts with an empty
// environment. Frames on stdin/stdout: type (1 byte), request id (uint32), payload length (uint32), payload.
//   in:  S spawn {command, args, cwd, env} · K stop the group (SIGTERM, SIGKILL after the grace)
//        T make a temporary tree {prefix, dirs, files: [{path, text, mode}]} · R remove a tree {path}
//   out: P started {pid} · E failed {message, code} · O stdout bytes · e stderr bytes · X exit {code, signal}
//        C closed (its pipes, or the pipe grace passed) · D done {path?}
// Stdin's end (the console is gone) stops every group it started, then this process.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const KILL_GRACE_MS = Number(process.argv[2]) || 2_000;
const PIPE_GRACE_MS = Number(process.argv[3]) || 1_000;
const HEADER = 9;
/** id → { child, pid, killTimer, pipeTimer, done } */
const procs = new Map();
/** Groups between SIGTERM and SIGKILL (their script may have ended). */
const stopping = new Set();
let paused = false;

function send(type, id, payload) {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload ?? Buffer.alloc(0);
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

function start(id, req) {
  let child;
  try {
    child = spawn(req.command, req.args, { cwd: req.cwd, env: req.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    send('E', id, JSON.stringify({ message: e.message, code: e.code }));
    return;
  }
  const p = { child, pid: child.pid, killTimer: null, pipeTimer: null, done: false };
  procs.set(id, p);
  const finish = () => {
    if (p.done) return;
    p.done = true;
    clearTimeout(p.pipeTimer);
    child.stdout.destroy();
    child.stderr.destroy();
    procs.delete(id);
    send('C', id);
  };
  child.on('error', (e) => {
    if (p.done) return;
    p.done = true;
    procs.delete(id);
    if (p.killTimer) clearTimeout(p.killTimer);
    send('E', id, JSON.stringify({ message: e.message, code: e.code }));
  });
  if (!child.pid) return; // 'error' follows
  send('P', id, JSON.stringify({ pid: child.pid }));
  if (paused) { child.stdout.pause(); child.stderr.pause(); }
  child.stdout.on('data', (c) => send('O', id, c));
  child.stderr.on('data', (c) => send('e', id, c));
  child.on('close', finish);
  child.on('exit', (code, signal) => {
    send('X', id, JSON.stringify({ code, signal }));
    // the script is done: whatever it left running in its group goes too
    stopGroup(p);
    // a grandchild that left the group may hold the pipes open: stop waiting for them after the kill grace
    p.pipeTimer = setTimeout(finish, KILL_GRACE_MS + PIPE_GRACE_MS);
  });
}

function tree(id, req) {
  try {
    const base = mkdtempSync(req.prefix);
    for (const d of req.dirs ?? []) mkdirSync(join(base, d), { mode: 0o700 });
    for (const f of req.files ?? []) writeFileSync(join(base, f.path), f.text, { mode: f.mode ?? 0o600 });
    send('D', id, JSON.stringify({ path: base }));
  } catch (e) {
    send('E', id, JSON.stringify({ message: e.message, code: e.code }));
  }
}

function remove(id, req) {
  try {
    rmSync(req.path, { recursive: true, force: true, maxRetries: 2 });
    send('D', id, '{}');
  } catch (e) {
    send('E', id, JSON.stringify({ message: e.message, code: e.code }));
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
    let req;
    try {
      req = JSON.parse(body.toString());
    } catch (e) {
      send('E', id, JSON.stringify({ message: `bad request: ${e.message}` }));
      continue;
    }
    if (type === 'S') start(id, req);
    else if (type === 'T') tree(id, req);
    else if (type === 'R') remove(id, req);
    else send('E', id, JSON.stringify({ message: `unknown request ${type}` }));
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
