import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { abortable, errorMessage, prop, testFailure } from './lib.js';
import { ConnectionTestError, type HydratedConnection, type Tester } from './types.js';

/**
 * email: nodemailer's `verify()` (connect, EHLO, STARTTLS when offered, AUTH when a username is set) against
 * `url` smtp://host:port (smtps:// or `Encryption=ImplicitTLS` for TLS from the start; the Email notification
 * type's url with its credentials) or `properties.host`/`port`, read the way the incidents
 * mailer reads them (server/modules/incidents/mailer.ts). The payload is the host, port and whether TLS was direct.
 */
export const emailTester: Tester = async (c, ctx) => {
  const opts = smtpOptions(c, ctx.timeoutMs);
  const target = `${opts.host}:${opts.port}`;
  const transport = nodemailer.createTransport(opts);
  try {
    await abortable(transport.verify(), ctx.signal, () => transport.close());
    return { host: opts.host, port: opts.port, secure: opts.secure ?? false, auth: !!opts.auth };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EAUTH') throw new ConnectionTestError(`authentication failed: ${errorMessage(err)}`);
    if (code === 'ESOCKET' || code === 'ECONNECTION') {
      const inner = (err as { cause?: unknown }).cause ?? err;
      throw testFailure(/ECONNREFUSED/.test(errorMessage(err)) ? { code: 'ECONNREFUSED' } : inner, target, `SMTP ${target}`);
    }
    if (code === 'ETIMEDOUT') throw new ConnectionTestError(`timed out waiting for the SMTP greeting of ${target}`);
    throw testFailure(err, target, `SMTP ${target}`);
  } finally {
    transport.close();
  }
};

function smtpOptions(c: HydratedConnection, timeoutMs: number): SMTPTransport.Options {
  let host = prop(c, 'host');
  let port = Number(prop(c, 'port')) || undefined;
  const enc = prop(c, 'encryption');
  let secure = enc === 'ssl' || enc === 'tls' || prop(c, 'encryptionMethod') === 'ImplicitTLS';
  let insecure = c.insecure_tls === true;
  let user = c.username ?? '';
  let pass = c.password ?? '';
  if (c.url?.trim()) {
    let u: URL;
    try {
      u = new URL(c.url.trim());
    } catch {
      throw new ConnectionTestError('url is not a valid URL (e.g. smtp://mail.example:587)');
    }
    if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new ConnectionTestError('url must start with smtp:// or smtps://');
    host = u.hostname.replace(/^\[|\]$/g, '');
    // the Email notification type's url (shoutrrr's): smtp://user:pass@host:port/?Encryption=ImplicitTLS&SkipTLSVerify=true
    secure = u.protocol === 'smtps:' || u.searchParams.get('Encryption') === 'ImplicitTLS';
    port = Number(u.port) || (secure ? 465 : 587);
    if (u.searchParams.get('SkipTLSVerify') === 'true') insecure = true;
    user ||= decodeURIComponent(u.username);
    pass ||= decodeURIComponent(u.password);
  }
  if (!host) throw new ConnectionTestError('no SMTP host: set url (smtp://host:port) or properties.host');
  return {
    host, port: port ?? 587, secure,
    auth: user ? { user, pass } : undefined,
    tls: insecure ? { rejectUnauthorized: false } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  };
}
