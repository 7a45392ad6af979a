import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { SendError, withHost } from './http.js';
import { str, type Sender } from './types.js';

/**
 * Email: `smtp://user:pass@host:port/?from=…&fromName=…&to=a,b&Encryption=Auto&Auth=Unknown&SkipTLSVerify=false`
 * through nodemailer, the title as subject with the HTML and text parts. `to` is the target's `to` property (a
 * person's address) else the URL's. Encryption: ImplicitTLS (or smtps://) is TLS from the start, ExplicitTLS
 * requires STARTTLS, None never upgrades, Auto upgrades when offered. Auth None sends no credentials, Plain/CRAMMD5
 * force that method, OAuth2 sends the password as the access token, Unknown lets the server choose.
 */
export function smtpOptions(values: Record<string, unknown>, timeoutMs: number, override?: URL): SMTPTransport.Options {
  const enc = str(values.encryptionMethod as string);
  const auth = str(values.authMethod as string);
  const user = str(values.username as string);
  const pass = str(values.password as string);
  const options: SMTPTransport.Options = {
    host: override?.hostname ?? str(values.host as string),
    port: Number(override?.port || values.port) || 587,
    secure: enc === 'ImplicitTLS',
    requireTLS: enc === 'ExplicitTLS',
    ignoreTLS: enc === 'None',
    tls: values.insecure_tls === true ? { rejectUnauthorized: false } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  };
  if (auth !== 'None' && (user || pass)) {
    options.auth = auth === 'OAuth2' ? { type: 'OAuth2', user, accessToken: pass } : { user, pass };
    if (auth === 'Plain') options.authMethod = 'PLAIN';
    if (auth === 'CRAMMD5') options.authMethod = 'CRAM-MD5';
  }
  return options;
}

export const email: Sender = {
  async send({ values, message, properties, attachments, base, signal, timeoutMs }) {
    const to = (properties.to || str(values.to)).split(/[,;]/).map((s) => s.trim()).filter(Boolean);
    if (!to.length) throw new SendError('email: no recipient (the target\'s `to`)', false);
    const endpoint = base('');
    const options = smtpOptions(values, timeoutMs, endpoint ? new URL(endpoint) : undefined);
    const host = options.host ?? 'localhost';
    const address = str(values.from) || properties.from || properties.fromAddress || `notifications@${host.includes('.') ? host : 'localhost'}`;
    await withHost(`smtp:${host}:${options.port}`, signal, async () => {
      // a pool of one, so close() ends a connection in use: nodemailer takes no signal, the attempt ends with it
      const transport = nodemailer.createTransport({ ...options, pool: true, maxConnections: 1 });
      let onAbort = () => {};
      const aborted = new Promise<never>((_r, reject) => {
        onAbort = () => {
          reject(new SendError(`email: ${host} did not answer in time`, true));
          transport.close();
        };
        if (signal.aborted) onAbort();
      });
      aborted.catch(() => {});
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const info = await Promise.race([aborted, transport.sendMail({
          from: values.fromName || properties.fromName ? { name: str(values.fromName) || properties.fromName, address } : address,
          to,
          subject: message.title,
          text: message.text,
          html: message.html,
          ...(attachments.length ? { attachments } : {}),
        })]);
        if (info.rejected.length && !info.accepted.length) throw new SendError(`email: every recipient was rejected: ${info.rejected.join(', ')}`, false);
      } catch (err) {
        if (err instanceof SendError) throw err;
        const e = err as Error & { responseCode?: number; code?: string };
        if (signal.aborted) throw new SendError(`email: ${host} did not answer in time`, true);
        // 4xx SMTP replies and connection errors may pass; 5xx replies are permanent
        const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
        throw new SendError(`email: ${e.message}`, !permanent);
      } finally {
        signal.removeEventListener('abort', onAbort);
        transport.close();
      }
    });
  },
};
