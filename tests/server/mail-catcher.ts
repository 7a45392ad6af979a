import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { SMTPServer } from 'smtp-server';
import { until } from '../support/poll.js';
import { OryBrowser } from './ory-browser.js';

/** A mail as the catcher received it, with the text decoded enough to find codes and links. */
export interface CaughtMail {
  to: string[];
  raw: string;
  text: string;
}

/**
 * A real SMTP server on loopback (smtp-server) that keeps what it receives; stop() and start() again on the same
 * port play a mail server that is down for a while.
 */
export class MailCatcher {
  inbox: CaughtMail[] = [];
  port = 0;
  private server?: SMTPServer;

  /** A free port, nothing listening on it yet. */
  async reservePort(): Promise<number> {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    this.port = (s.address() as AddressInfo).port;
    await new Promise<void>((r) => s.close(() => r()));
    return this.port;
  }

  async start(): Promise<void> {
    if (!this.port) await this.reservePort();
    this.server = new SMTPServer({
      secure: false, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          // quoted-printable soft breaks and `=` as nodemailer writes long lines
          const text = raw.replace(/=\r?\n/g, '').replace(/=3D/gi, '=');
          this.inbox.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, text });
          cb();
        });
      },
    });
    await new Promise<void>((r) => this.server!.listen(this.port, '127.0.0.1', () => r()));
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }

  /** The mails to an address so far. */
  to(address: string): CaughtMail[] {
    return this.inbox.filter((m) => m.to.includes(address.toLowerCase()) || m.to.includes(address));
  }

  /** Waits for the n-th mail to an address (1-based). */
  waitFor(address: string, n = 1): Promise<CaughtMail> {
    return until(async () => this.to(address)[n - 1], `mail #${n} to ${address}`, 15_000);
  }
}

export const codeIn = (m: CaughtMail) => /code is: (\d{6})/.exec(m.text)![1];
export const linkIn = (m: CaughtMail) => /(https?:\/\/\S+?token=[A-Za-z0-9_%-]+)/.exec(m.text)![1];

/** An OryBrowser from its own client address (the per-client limits count by address). */
export class ClientBrowser extends OryBrowser {
  constructor(app: FastifyInstance, private ip: string) {
    super(app);
  }

  override request(opts: InjectOptions & { json?: boolean }): Promise<LightMyRequestResponse> {
    return super.request({ ...opts, remoteAddress: this.ip });
  }
}

let n = 0;
/** A client address no other browser of the process uses. */
export const nextIp = () => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${++n & 255}`;
