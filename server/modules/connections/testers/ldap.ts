import { isIP, type Socket } from 'node:net';
import { abortable, errorMessage, hostPort, maskUrl, parseUrl, requireUrl, testFailure } from './lib.js';
import { ConnectionTestError, type Tester } from './types.js';

/** RFC 4532 "Who am I?": the identity the server holds for the bound session. */
const WHO_AM_I = '1.3.6.1.4.1.4203.1.11.3';

/**
 * ldap: a simple bind (ldapts) with `username` as the bind DN and `password`, to `url` ldap://host:port or
 * ldaps://host:port (TLS from the start; `insecure_tls` accepts any certificate, `certificate` may hold the CA in
 * PEM). The payload is the url, the DN bound as and, when the server answers "Who am I?", its identity for the
 * session. An empty password is refused before connecting: LDAP treats it as an anonymous bind that "succeeds"
 * for any DN, which would pass a test that proves nothing.
 */
export const ldapTester: Tester = async (c, ctx) => {
  const raw = requireUrl(c, 'ldap://ldap.example:389');
  const u = parseUrl(raw, ['ldap', 'ldaps']);
  const secure = u.protocol === 'ldaps:';
  const target = hostPort(u, secure ? 636 : 389);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const dn = c.username?.trim();
  if (!dn) throw new ConnectionTestError('username is required: the DN to bind as (e.g. cn=admin,dc=example,dc=org)');
  if (!c.password) throw new ConnectionTestError('password is required: an empty password is an anonymous bind, which proves nothing');
  const ca = c.certificate?.includes('-----BEGIN CERTIFICATE-----') ? c.certificate : undefined;
  // ldapts is imported at a first ldap test, not with the app
  const { Client, InvalidCredentialsError, InvalidDNSyntaxError, NoSuchObjectError } = await import('ldapts');
  const client = new Client({
    url: `${u.protocol}//${u.host}`,
    connectTimeout: ctx.timeoutMs,
    timeout: ctx.timeoutMs,
    tlsOptions: secure ? { rejectUnauthorized: !c.insecure_tls, ...(ca && { ca }), ...(!isIP(host) && { servername: host }) } : undefined,
  });
  // ldapts keeps its socket to itself; on abort it is destroyed so a hung server cannot hold the test
  const drop = () => (client as unknown as { socket?: Socket }).socket?.destroy();
  try {
    return await abortable(
      (async () => {
        await client.bind(dn, c.password!);
        const whoami = await client
          .exop(WHO_AM_I)
          .then((r) => r.value?.replace(/^dn:/, '') || undefined)
          .catch(() => undefined);
        return { url: maskUrl(raw), bound: dn, ...(whoami && { whoami }) };
      })(),
      ctx.signal,
      drop,
    );
  } catch (err) {
    if (err instanceof InvalidCredentialsError) {
      throw new ConnectionTestError(`authentication failed: invalid credentials for ${dn} at ${target}`);
    }
    if (err instanceof InvalidDNSyntaxError) throw new ConnectionTestError(`username is not a valid DN: ${dn}`);
    if (err instanceof NoSuchObjectError) throw new ConnectionTestError(`authentication failed: ${dn} does not exist at ${target}`);
    const text = errorMessage(err);
    if (/^Connection timeout/.test(text)) throw new ConnectionTestError(`timed out connecting to ${target}`);
    if (/Timeout limit|timed out/i.test(text)) throw new ConnectionTestError(`timed out waiting for ${target} to answer the bind`);
    throw testFailure(err, target, `LDAP ${target}`);
  } finally {
    await client.unbind().catch(() => {});
    drop();
  }
};
