import { abortable, errorMessage, prop, requireUrl, testFailure } from './lib.js';
import { ConnectionTestError, type HydratedConnection, type Tester } from './types.js';

/**
 * sftp: signs in over SSH with the username and password fields (ssh2-sftp-client) to the host stored as `url`
 * (`sftp://host:port`, `host:port` or `host`; port from the url, else `properties.port`, else 22) and lists the
 * home directory. The payload is the host, port, home path and how many entries it lists. Credentials live in the
 * username/password fields only: a url carrying them is refused, so they never sit in a column shown as written.
 * The host key is not pinned (as the reference does); the server only proves it holds the password's account.
 */
export const sftpTester: Tester = async (c, ctx) => {
  const { host, port } = sftpTarget(c);
  if (!c.username) throw new ConnectionTestError('username is required');
  const target = `${host}:${port}`;
  // ssh2-sftp-client's default listeners print to the console; a test reports through its result instead
  const quiet = { error: () => {}, end: () => {}, close: () => {} };
  // ssh2-sftp-client (and ssh2) is imported at a first sftp test, not with the app
  const { default: SftpClient } = await import('ssh2-sftp-client');
  const client = new SftpClient('connection-test', quiet);
  // the ssh2 connection under the sftp client (not in its type declarations): destroyed on abort and at the end
  const ssh = (client as unknown as { client: { destroy(): void } }).client;
  try {
    return await abortable(
      (async () => {
        await client.connect({
          host, port, username: c.username!, password: c.password ?? '',
          readyTimeout: ctx.timeoutMs,
          tryKeyboard: false,
        });
        const home = await client.cwd();
        const entries = await client.list(home);
        return { host, port, home, entries: entries.length };
      })(),
      ctx.signal,
      () => ssh.destroy(),
    );
  } catch (err) {
    const text = errorMessage(err);
    if (/authentication methods failed/i.test(text)) {
      throw new ConnectionTestError(`authentication failed: ${target} refused the username or password`);
    }
    if (/Timed out while waiting for handshake/i.test(text)) {
      throw new ConnectionTestError(`timed out waiting for the SSH handshake of ${target}`);
    }
    if (/Address lookup failed/i.test(text)) throw new ConnectionTestError(`host not found: ${host} does not resolve (DNS)`);
    if (/refused connection/i.test(text)) throw new ConnectionTestError(`connection refused: nothing accepts connections at ${target}`);
    throw testFailure(err, target, `SFTP ${target}`);
  } finally {
    ssh.destroy();
  }
};

/** The host and port of an sftp connection: `url` is `sftp://host:port`, `host:port` or `host`. */
export function sftpTarget(c: HydratedConnection): { host: string; port: number } {
  const raw = requireUrl(c, 'sftp.example or sftp://sftp.example:22');
  let u: URL;
  try {
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `sftp://${raw}`);
  } catch {
    throw new ConnectionTestError(`url is not a host name: ${raw.replace(/\/\/[^@/]*@/, '//***@')}`);
  }
  if (u.protocol !== 'sftp:' && u.protocol !== 'ssh:') throw new ConnectionTestError(`url must be a host or sftp://host:port (got ${u.protocol}//)`);
  if (u.username || u.password) throw new ConnectionTestError('url must not hold credentials: put them in username and password');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw new ConnectionTestError('url has no host');
  const portText = u.port || prop(c, 'port') || '22';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConnectionTestError(`port must be 1-65535 (got ${portText})`);
  return { host, port };
}
