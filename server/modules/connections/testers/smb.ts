import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { abortable, errorCode, prop, requireUrl, testFailure } from './lib.js';
import { ConnectionTestError, type HydratedConnection, type Tester } from './types.js';

/** The part of @tryjsky/v9u-smb2 (no type declarations of its own) the test uses. */
interface Smb2Client {
  readdir(path: string): Promise<string[]>;
  disconnect(): void;
  socket: Socket;
}
type Smb2Ctor = new (opts: {
  share: string; domain: string; username: string; password: string; port: number; autoCloseTimeout: number;
}) => Smb2Client;

// @tryjsky/v9u-smb2: marsaud's SMB2 client with NTLMv2 in pure JS. Samba 4.17 refuses NTLMv1 by default
// (`ntlm auth = ntlmv2-only`), which is all @marsaud/smb2 and @awo00/smb2 speak, and v9u-smb2 itself needs MD4
// from OpenSSL's legacy provider, which Node 20 does not load.
const SMB2 = createRequire(import.meta.url)('@tryjsky/v9u-smb2') as Smb2Ctor;

/** What the server's NTSTATUS means for the user. */
const STATUS: Record<string, (t: SmbTarget) => string> = {
  STATUS_LOGON_FAILURE: (t) => `authentication failed: ${t.host}:${t.port} refused the username or password`,
  STATUS_ACCOUNT_DISABLED: (t) => `authentication failed: the account is disabled on ${t.host}`,
  STATUS_ACCOUNT_LOCKED_OUT: (t) => `authentication failed: the account is locked out on ${t.host}`,
  STATUS_PASSWORD_EXPIRED: (t) => `authentication failed: the password has expired on ${t.host}`,
  STATUS_ACCESS_DENIED: (t) => `access denied to \\\\${t.host}\\${t.share}${t.path ? `\\${t.path}` : ''}`,
  STATUS_BAD_NETWORK_NAME: (t) => `share not found: ${t.host} has no share named ${t.share}`,
  STATUS_OBJECT_NAME_NOT_FOUND: (t) => `folder not found: ${t.path} in share ${t.share}`,
  STATUS_OBJECT_PATH_NOT_FOUND: (t) => `folder not found: ${t.path} in share ${t.share}`,
  STATUS_NOT_A_DIRECTORY: (t) => `${t.path} in share ${t.share} is not a folder`,
};

/**
 * smb: signs in to the SMB2 server (NTLMv2, username/password), connects to the share and lists the search path
 * (the share's root by default). The server, share and path come from `url` (`smb://host[:port]/share[/path]`,
 * `\\host\share[\path]` or a bare host) with `properties.port` (default 445), `properties.sharename` (or `share`) and
 * `properties.searchPath` filling what the url leaves out, as the reference's form stores them. The payload is
 * the server, port, share, path and how many entries it lists.
 */
export const smbTester: Tester = async (c, ctx) => {
  const t = smbTarget(c);
  const client = new SMB2({
    share: `\\\\${t.host}\\${t.share}`,
    domain: 'WORKGROUP', // required by the constructor, not sent: the client's NTLMv2 response names no domain
    username: c.username ?? '',
    password: c.password ?? '',
    port: t.port,
    autoCloseTimeout: 0,
  });
  try {
    return await abortable(
      (async () => {
        const entries = await client.readdir(t.path.replaceAll('/', '\\'));
        return { server: t.host, port: t.port, share: t.share, path: t.path || '/', entries: entries.length };
      })(),
      ctx.signal,
      () => client.socket.destroy(),
    );
  } catch (err) {
    const status = errorCode(err);
    if (status && STATUS[status]) throw new ConnectionTestError(STATUS[status](t));
    if (status?.startsWith('STATUS_')) throw new ConnectionTestError(`SMB ${t.host}:${t.port} answered ${status}`);
    throw testFailure(err, `${t.host}:${t.port}`, `SMB ${t.host}:${t.port}`);
  } finally {
    client.socket.destroy();
  }
};

export interface SmbTarget {
  host: string;
  port: number;
  share: string;
  /** Inside the share, `/`-separated, no leading slash; '' for the root. */
  path: string;
}

/** Where an smb connection points: see smbTester. */
export function smbTarget(c: HydratedConnection): SmbTarget {
  const raw = requireUrl(c, 'smb://files.example/share or \\\\files.example\\share');
  let host: string;
  let urlPort = '';
  let segments: string[];
  if (raw.startsWith('\\\\') || raw.startsWith('//')) {
    [host, ...segments] = raw.slice(2).split(/[\\/]/);
  } else {
    let u: URL;
    try {
      u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `smb://${raw}`);
    } catch {
      throw new ConnectionTestError(`url is not an SMB address: ${raw.replace(/\/\/[^@/]*@/, '//***@')}`);
    }
    if (u.protocol !== 'smb:' && u.protocol !== 'cifs:') throw new ConnectionTestError(`url must be smb://host/share or \\\\host\\share (got ${u.protocol}//)`);
    if (u.username || u.password) throw new ConnectionTestError('url must not hold credentials: put them in username and password');
    host = u.hostname.replace(/^\[|\]$/g, '');
    urlPort = u.port;
    segments = decodeURIComponent(u.pathname).split('/');
  }
  segments = segments.filter(Boolean);
  if (!host) throw new ConnectionTestError('url has no server');
  const share = segments[0] ?? prop(c, 'sharename', 'share');
  if (!share) throw new ConnectionTestError('share is required: smb://host/share or properties.sharename');
  const path = (segments.length > 1 ? segments.slice(1).join('/') : (prop(c, 'searchPath') ?? '')).replace(/\\/g, '/').replace(/^\/+|\/+$/g, '');
  if (path.split('/').includes('..')) throw new ConnectionTestError('searchPath must not contain ..');
  const portText = urlPort || prop(c, 'port') || '445';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConnectionTestError(`port must be 1-65535 (got ${portText})`);
  return { host, port, share, path };
}
