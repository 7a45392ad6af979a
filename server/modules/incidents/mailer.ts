import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { hydrateConnection, type HydratedConnection, type HydrateOptions } from '../../lib/connection-hydrate.js';
import type { SmtpConnectionRow } from './queries.js';

/** What an email responder sends (its properties) plus the incident it is about. */
export interface EmailRequest {
  to: string;
  subject: string;
  body: string;
  incidentDisplayId: string;
  incidentTitle: string;
  incidentUrl: string;
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/**
 * nodemailer options for a hydrated connection: `url` smtp://host:port (STARTTLS when offered) or smtps://host:port
 * (TLS), else `properties.host`/`port`; credentials from username/password; `insecure_tls` accepts any certificate.
 */
export function transportOptions(conn: HydratedConnection): SMTPTransport.Options {
  const props = conn.properties ?? {};
  let host = str(props.host);
  let port = Number(props.port) || undefined;
  let secure = props.encryption === 'ssl' || props.encryption === 'tls';
  let user = conn.username;
  let pass = conn.password;
  if (conn.url) {
    let u: URL;
    try {
      u = new URL(conn.url);
    } catch {
      throw new Error(`connection ${conn.namespace}/${conn.name}: url is not a URL`);
    }
    if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') {
      throw new Error(`connection ${conn.namespace}/${conn.name}: url must be smtp:// or smtps://`);
    }
    host = u.hostname.replace(/^\[|\]$/g, '');
    secure = u.protocol === 'smtps:';
    port = Number(u.port) || (secure ? 465 : 587);
    // credentials in the url (smtp://$(username):$(password)@host, filled by the hydrator) when the columns have none
    if (!user && u.username) {
      user = decodeURIComponent(u.username);
      pass = decodeURIComponent(u.password);
    }
  }
  if (!host) throw new Error(`connection ${conn.namespace}/${conn.name}: no SMTP host (url or properties.host)`);
  return {
    host,
    port: port ?? 587,
    secure,
    auth: user ? { user, pass } : undefined,
    tls: conn.insecure_tls ? { rejectUnauthorized: false } : undefined,
    // never hang a delivery forever: a dead server fails the responder and the next one goes on
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  };
}

/** The sender address: properties.from, else the username when it is an address, else ops-console@<smtp host>. */
export function fromAddress(conn: HydratedConnection, host: string): string {
  const from = str(conn.properties?.from) ?? str(conn.properties?.fromAddress);
  if (from) return from;
  if (conn.username?.includes('@')) return conn.username;
  return `ops-console@${host.includes('.') ? host : 'localhost'}`;
}

/** The text with every secret value replaced by `***` (an SMTP server's error may echo what it was sent). */
function masked(message: string, secrets: string[]): string {
  return secrets.reduce((m, s) => (s ? m.split(s).join('***') : m), message);
}

/**
 * Sends one email through the connection; resolves with the Message-ID the server accepted. The connection's
 * `secret://`/`configmap://` values are read through the one hydrator (from the connection's namespace, with
 * `opts.valueFrom`); an error never carries one of them.
 */
export async function sendEmail(row: SmtpConnectionRow, req: EmailRequest, opts: HydrateOptions = {}): Promise<string> {
  const conn = await hydrateConnection(row, opts);
  try {
    const options = transportOptions(conn);
    const transport = nodemailer.createTransport(options);
    try {
      const info = await transport.sendMail({
        from: fromAddress(conn, options.host ?? 'localhost'),
        to: req.to,
        subject: req.subject,
        text: `${req.body}\n\n--\nIncident ${req.incidentDisplayId}: ${req.incidentTitle}\n${req.incidentUrl}\n`,
      });
      if (info.rejected.length && !info.accepted.length) throw new Error(`every recipient was rejected: ${info.rejected.join(', ')}`);
      return info.messageId;
    } finally {
      transport.close();
    }
  } catch (err) {
    if (err instanceof Error) err.message = masked(err.message, conn.secrets);
    throw err;
  }
}
