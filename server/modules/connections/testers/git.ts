import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { maskUrl, prop, requireUrl } from './lib.js';
import { ConnectionTestError, type Tester } from './types.js';

/** git's stderr, what it means for the user. */
const STDERR_MEANINGS: Array<[RegExp, (url: string) => string]> = [
  [/Authentication failed|could not read Username|terminal prompts disabled|403|401|Permission denied \(publickey/i, (u) => `authentication failed for ${u}`],
  [/Could not resolve host|Name or service not known/i, (u) => `host not found: the host of ${u} does not resolve (DNS)`],
  [/Connection refused|Couldn't connect to server/i, (u) => `connection refused: nothing accepts connections for ${u}`],
  [/SSL certificate problem|server certificate verification failed/i, (u) => `TLS: the certificate of ${u} is not trusted; add its CA or allow insecure TLS`],
  [/does not appear to be a git repository|not found|No such file or directory/i, (u) => `no git repository at ${u}`],
];

/**
 * git: `git ls-remote <url> <ref>` (ref from `properties.ref` or `properties.branch`, default main). Credentials reach
 * git through a credential helper reading the environment, so the password is never in the url, argv or a message;
 * the url's own password is shown masked. With an ssh url (git@host:org/repo.git, ssh://), `certificate` is the
 * private key. The payload is the ref and its commit.
 */
export const gitTester: Tester = async (c, ctx) => {
  const raw = requireUrl(c, 'https://git.example/org/repo.git');
  const ref = prop(c, 'ref', 'branch') ?? 'main';
  if (ref.startsWith('-')) throw new ConnectionTestError(`ref must not start with '-' (got ${ref})`);
  let url = raw;
  let user = c.username ?? '';
  let pass = c.password ?? '';
  if (/^https?:\/\//i.test(raw)) {
    const u = new URL(raw);
    user = u.username ? decodeURIComponent(u.username) : user;
    pass = u.password ? decodeURIComponent(u.password) : pass;
    u.username = '';
    u.password = '';
    url = u.toString();
  }
  const shown = maskUrl(raw);
  const args = [
    '-c', 'credential.helper=',
    '-c', 'credential.helper=!f() { test "$1" = get && printf "username=%s\\npassword=%s\\n" "$OPS_GIT_USER" "$OPS_GIT_PASS"; }; f',
    '-c', `http.sslVerify=${c.insecure_tls ? 'false' : 'true'}`,
    'ls-remote', '--exit-code', '--', url, ref,
  ];
  // SSH authentication: the private key in `certificate`, in a file of its own that only this process reads. The
  // connection has no field for the server's host key, so it is not checked (a test signs in; it sends no secret).
  const key = c.certificate?.trim() && !/^https?:\/\//i.test(raw) && !/^file:/i.test(raw) ? `${c.certificate.trim()}\n` : undefined;
  const keyDir = key ? await mkdtemp(join(tmpdir(), 'conn-git-key-')) : undefined;
  const ssh = ['ssh', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'];
  if (keyDir) {
    await writeFile(join(keyDir, 'id'), key!, { mode: 0o600 });
    ssh.push('-o', 'IdentitiesOnly=yes', '-i', join(keyDir, 'id'));
  }
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', GIT_TERMINAL_PROMPT: '0',
    GIT_SSH_COMMAND: ssh.join(' '), OPS_GIT_USER: user, OPS_GIT_PASS: pass,
  };
  const { code, stdout, stderr } = await lsRemote(args, env, ctx.signal).finally(() => keyDir && rm(keyDir, { recursive: true, force: true }));
  if (ctx.signal.aborted) throw new ConnectionTestError('aborted');
  if (code === 0) {
    const [commit, name] = stdout.split('\n')[0].split('\t');
    return { url: shown, ref: name ?? ref, commit };
  }
  if (code === 2) throw new ConnectionTestError(`ref ${ref} not found in ${shown}`);
  const last = stderr.trim().split('\n').pop() ?? '';
  const meaning = STDERR_MEANINGS.find(([re]) => re.test(stderr));
  // over ssh, what ssh said (no secret is in it: the key stays in its file) tells "key refused" from "key unreadable"
  if (meaning && keyDir) throw new ConnectionTestError(`${meaning[1](shown)}: ${last.split(url).join(shown).split(keyDir).join('<key>')}`);
  if (meaning) throw new ConnectionTestError(meaning[1](shown));
  throw new ConnectionTestError(`git ls-remote ${shown} failed${last ? `: ${last.split(url).join(shown)}` : ` (exit ${code})`}`);
};

function lsRemote(args: string[], env: Record<string, string>, signal: AbortSignal) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('git', args, { env, signal, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out = (out + d).slice(0, 64 * 1024)));
    child.stderr.on('data', (d) => (err = (err + d).slice(-4096)));
    child.on('error', (e) => reject(signal.aborted ? new ConnectionTestError('aborted') : new ConnectionTestError(`git could not run: ${e.message}`)));
    child.on('close', (exit) => resolve({ code: exit, stdout: out, stderr: err }));
  });
}
