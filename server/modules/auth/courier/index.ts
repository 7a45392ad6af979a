import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../../config.js';
import { notifyChange } from '../../../lib/events.js';
import { leaderScheduled, type LeaderScheduler } from '../../../lib/leader-scheduled.js';
import { codeKey } from '../one-time-codes.js';
import { deleteExpired, insertMessage, type OutgoingMail } from './queries.js';
import { systemConnectionId } from '../../notifications/senders/target.js';
import { createCourierSender, type CourierSettings } from './sender.js';

export type { OutgoingMail } from './queries.js';

type Db = pg.Pool | pg.PoolClient;

/** Retention of sign-in activity (auth_events) and of sent or abandoned mail, in days. */
export const AUTH_EVENT_RETENTION_DAYS = 90;

let settings: CourierSettings & { retentionIntervalMs: number } = {
  intervalMs: 3_000, batch: 20, leaseMs: 60_000, retryBaseMs: 5_000, retryMaxMs: 15 * 60_000, maxSends: 10,
  timeoutMs: 10_000, retentionIntervalMs: 60 * 60_000,
};

/** Changes the courier's timing (tests: 100 ms); read at each pass, so it applies to running senders too. */
export function configureCourier(patch: Partial<typeof settings>): void {
  settings = { ...settings, ...patch };
}

let registered: Config | undefined;
/** The config of the app the courier module was registered in (for callers without one at hand). */
export const courierConfig = (): Config | undefined => registered;

/** Whether SMTP_* names a mail server (only half the answer: see mailAvailable). */
export const mailConfigured = (config: Pick<Config, 'SMTP_HOST'>) => Boolean(config.SMTP_HOST);

/**
 * Whether mail can go out at all: an email connection named `system`, or SMTP_HOST (the courier sends through the
 * same, in that order). Without either, recovery and verification say so and no code is made.
 */
export async function mailAvailable(db: Db, config: Pick<Config, 'SMTP_HOST'>): Promise<boolean> {
  return mailConfigured(config) || (await systemConnectionId(db)) !== null;
}

// Outbox bodies carry codes and links: they are sealed (AES-256-GCM, key derived from the code key) so no table
// holds one in plain text.
async function sealKey(db: Db, config: Config): Promise<Buffer> {
  return createHmac('sha256', await codeKey(db, config)).update('courier-bodies').digest();
}

function seal(key: Buffer, text: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([c.update(text, 'utf8'), c.final()]);
  return `sealed.v1.${Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64url')}`;
}

function unseal(key: Buffer, value: string): string {
  if (!value.startsWith('sealed.v1.')) return value;
  const raw = Buffer.from(value.slice('sealed.v1.'.length), 'base64url');
  const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  d.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
}

/** Queues a mail (sealed) and wakes the leader's sender; nothing waits for SMTP. Returns the outbox row id. */
export async function enqueueMail(db: Db, config: Config, mail: OutgoingMail): Promise<string> {
  const key = await sealKey(db, config);
  const id = await insertMessage(db, {
    ...mail, bodyText: seal(key, mail.bodyText), bodyHtml: mail.bodyHtml ? seal(key, mail.bodyHtml) : undefined,
  });
  await notifyChange(db, { relation: 'courier_messages', ids: [id] });
  return id;
}

/** Opens a sealed outbox body (tests read the mail they expect through the sender; this is for it). */
export async function openBody(db: Db, config: Config, value: string): Promise<string> {
  return unseal(await sealKey(db, config), value);
}

/** Deletes what retention says is over: auth_events after 90 days, expired flows and codes, old mail. */
export function runRetention(db: Db) {
  return deleteExpired(db, AUTH_EVENT_RETENTION_DAYS);
}

function retentionJob(db: pg.Pool, log: { warn(o: object, m: string): void }): LeaderScheduler {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  const tick = () => {
    running = runRetention(db).catch((err) => log.warn({ err }, 'auth retention failed'));
    timer = setTimeout(tick, settings.retentionIntervalMs);
  };
  return {
    async start() { tick(); },
    async stop() { clearTimeout(timer); await running; },
    async reload() {},
  };
}

/**
 * The courier (issue 17): the outbox sender and the sign-in data retention, both on the leader. One register line
 * in app.ts.
 */
export const courierModule: FastifyPluginAsync<{ config: Config }> = async (app, { config }) => {
  registered = config;
  leaderScheduled(app, {
    name: 'courier',
    relation: 'courier_messages',
    create: () => createCourierSender(app.db, config, () => settings, (v) => openBody(app.db, config, v), app.log),
  });
  leaderScheduled(app, { name: 'auth retention', relation: 'auth_retention', create: () => retentionJob(app.db, app.log) });
};
