// posix_spawn(3) for the exec spawner (./exec-spawner.mjs), through koffi's FFI, on Linux with glibc.
//
// Why: node's child_process (libuv) starts a process with fork(), and on this kind of VM a fork is paid by the size of
// the forking process: the page tables are copied, every page the parent writes afterwards takes a copy-on-write fault
// with a TLB flush, and the copy is torn down again at exec. Measured here (scripts `echo hi`, 8 at once): node's spawn
// about 7 ms of the spawner's CPU and 9.5 ms in the child; glibc's posix_spawn (clone with CLONE_VM | CLONE_VFORK:
// nothing copied, the parent waits the few microseconds until exec) about 1.2 ms and 8.3 ms, most of that bash's own
// start. Node has no binding to posix_spawn and koffi (a maintained FFI with prebuilt binaries) is the smallest way to
// call it; libuv's own process handling is left alone, so this module reaps its children itself on SIGCHLD (the
// spawner starts no other children).
//
// The child gets what node's spawn gave it: its own process group (POSIX_SPAWN_SETPGROUP, as `detached: true`), every
// signal at its default disposition and none blocked (node ignores SIGPIPE; a script must not inherit that), stdin from
// /dev/null, stdout and stderr on fresh pipes, the working directory, only the given environment, and the command
// looked up on the given environment's PATH (as node does; glibc's posix_spawnp would use the spawner's, which is
// empty).
import { accessSync, constants as fsConstants } from 'node:fs';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { constants } from 'node:os';
import { delimiter, join } from 'node:path';

const O_RDONLY = 0;
const O_CLOEXEC = 0o2000000;
const WNOHANG = 1;
const POSIX_SPAWN_SETPGROUP = 0x02;
const POSIX_SPAWN_SETSIGDEF = 0x04;
const POSIX_SPAWN_SETSIGMASK = 0x08;
// glibc x86_64/aarch64: posix_spawn_file_actions_t 80 bytes, posix_spawnattr_t 336, sigset_t 128; with room to spare
const FILE_ACTIONS_BYTES = 256;
const ATTR_BYTES = 1024;
const SIGSET_BYTES = 256;

const errnoNames = Object.fromEntries(Object.entries(constants.errno).map(([name, n]) => [n, name]));

/**
 * The native spawner, or null where it cannot work (not Linux, no glibc, koffi missing): the caller then uses
 * child_process. → { spawn(command, args, cwd, env) → {pid, stdout, stderr, onExit(cb)} | throws {message, code} }
 */
export function loadPosixSpawn() {
  if (process.platform !== 'linux') return null;
  let koffi;
  try {
    koffi = createRequire(import.meta.url)('koffi');
  } catch {
    return null;
  }
  let libc;
  try {
    libc = koffi.load('libc.so.6');
  } catch {
    return null; // musl and others: child_process
  }
  const f = (sig) => libc.func(sig);
  const spawnFn = f('int posix_spawn(_Out_ int *pid, const char *path, void *actions, void *attr, const char **argv, const char **envp)');
  const faInit = f('int posix_spawn_file_actions_init(void *actions)');
  const faDestroy = f('int posix_spawn_file_actions_destroy(void *actions)');
  const faOpen = f('int posix_spawn_file_actions_addopen(void *actions, int fd, const char *path, int oflag, unsigned int mode)');
  const faDup2 = f('int posix_spawn_file_actions_adddup2(void *actions, int fd, int newfd)');
  const faChdir = f('int posix_spawn_file_actions_addchdir_np(void *actions, const char *path)');
  const attrInit = f('int posix_spawnattr_init(void *attr)');
  const attrFlags = f('int posix_spawnattr_setflags(void *attr, short flags)');
  const attrPgroup = f('int posix_spawnattr_setpgroup(void *attr, int pgroup)');
  const attrSigdefault = f('int posix_spawnattr_setsigdefault(void *attr, void *set)');
  const attrSigmask = f('int posix_spawnattr_setsigmask(void *attr, void *set)');
  const sigfillset = f('int sigfillset(void *set)');
  const sigemptyset = f('int sigemptyset(void *set)');
  const pipe2 = f('int pipe2(void *fds, int flags)');
  const close = f('int close(int fd)');
  const waitpid = f('int waitpid(int pid, _Out_ int *status, int options)');
  const errnoFn = koffi.errno;

  // one attribute set for every child
  const attr = Buffer.alloc(ATTR_BYTES);
  const all = Buffer.alloc(SIGSET_BYTES);
  const none = Buffer.alloc(SIGSET_BYTES);
  if (attrInit(attr) || sigfillset(all) || sigemptyset(none)) return null;
  if (attrFlags(attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) || attrPgroup(attr, 0)
    || attrSigdefault(attr, all) || attrSigmask(attr, none)) return null;

  /** pid → exit callback */
  const exits = new Map();
  process.on('SIGCHLD', () => {
    for (;;) {
      const status = [0];
      const pid = waitpid(-1, status, WNOHANG);
      if (pid <= 0) break;
      const s = status[0];
      const signal = s & 0x7f;
      const done = exits.get(pid);
      exits.delete(pid);
      // WIFEXITED: the low 7 bits are 0 and the code is in the next byte; else WIFSIGNALED with that signal
      done?.(signal === 0 ? (s >> 8) & 0xff : null, signal === 0 ? null : signal);
    }
  });

  const error = (command, errno) => {
    const code = errnoNames[errno] ?? `errno ${errno}`;
    return Object.assign(new Error(`spawn ${command} ${code}`), { code });
  };

  function newPipe(command) {
    const fds = Buffer.alloc(8);
    if (pipe2(fds, O_CLOEXEC) !== 0) throw error(command, errnoFn());
    return [fds.readInt32LE(0), fds.readInt32LE(4)];
  }

  /** The command's file: as given when it has a slash, else the first executable on the child's PATH. */
  function resolve(command, env) {
    if (command.includes('/')) return command;
    for (const dir of (env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
      const file = join(dir || '.', command);
      try {
        accessSync(file, fsConstants.X_OK);
        return file;
      } catch {
        // next
      }
    }
    throw Object.assign(new Error(`spawn ${command} ENOENT`), { code: 'ENOENT' });
  }

  function spawn(command, args, cwd, env) {
    const file = resolve(command, env);
    const out = newPipe(command);
    let err;
    try {
      err = newPipe(command);
    } catch (e) {
      close(out[0]);
      close(out[1]);
      throw e;
    }
    const actions = Buffer.alloc(FILE_ACTIONS_BYTES);
    faInit(actions);
    const pid = [0];
    let rc;
    try {
      rc = faOpen(actions, 0, '/dev/null', O_RDONLY, 0) || faDup2(actions, out[1], 1) || faDup2(actions, err[1], 2)
        || faChdir(actions, cwd)
        || spawnFn(pid, file, actions, attr, [command, ...args, null], [...Object.entries(env).map(([k, v]) => `${k}=${v}`), null]);
    } finally {
      faDestroy(actions);
      close(out[1]);
      close(err[1]);
    }
    if (rc !== 0) {
      close(out[0]);
      close(err[0]);
      throw error(command, rc);
    }
    let exit = null;
    let onExit = null;
    exits.set(pid[0], (code, signal) => {
      exit = { code, signal };
      onExit?.(code, signal);
    });
    return {
      pid: pid[0],
      stdout: new Socket({ fd: out[0], readable: true, writable: false }),
      stderr: new Socket({ fd: err[0], readable: true, writable: false }),
      /** cb(code, signal number) once it has exited (at once if it already has). */
      onExit(cb) {
        onExit = cb;
        if (exit) cb(exit.code, exit.signal);
      },
    };
  }

  return { spawn };
}
