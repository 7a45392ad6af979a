import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecorder, type HttpRecorder } from '../support/http-recorder.js';
import { until } from '../support/poll.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * Statements per send (issue 15 "Performance": the 10,000 flips a minute target is bound by CPU per send, most of it
 * round trips). A burst of failing checks, each matched by one rule to a loopback hook, is counted end to end: the
 * check event's consumer work, the notification.send row's, the delivery's. Every statement the app's connections
 * send to the test database is counted (the test's own look-ups are subtracted), so a change that adds a query per
 * send fails here. The counts are not timed.
 */

let t: TestContext;
let rec: HttpRecorder;
const SENDS = 60;
/** STMTS_DEBUG=1: the statements counted, by text (to see where they go). */
const texts = new Map<string, number>();

beforeAll(async () => {
  rec = await startRecorder();
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
});
afterAll(async () => {
  await t?.close();
  await rec?.close();
});

/** Counts the statements pg clients send to one database while `fn` runs. */
async function counting<T>(database: string, fn: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const proto = pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
  const original = proto.query;
  let statements = 0;
  proto.query = function (this: pg.Client & { connectionParameters?: { database?: string } }, ...args: unknown[]) {
    if (this.connectionParameters?.database === database) {
      statements++;
      if (process.env.STMTS_DEBUG) {
        const a = args[0] as string | { text?: string };
        const text = (typeof a === 'string' ? a : a?.text ?? '?').replace(/\s+/g, ' ').slice(0, 90);
        texts.set(text, (texts.get(text) ?? 0) + 1);
      }
    }
    return original.apply(this, args);
  };
  try {
    const result = await fn();
    return { result, statements };
  } finally {
    proto.query = original;
  }
}

describe('statements per send', () => {
  it(`a burst of ${SENDS} failing checks, one rule each: the consumer, send and delivery take few statements per send`, async () => {
    const canary = (await t.db.query<{ id: string }>(
      `INSERT INTO canaries (name, namespace, spec, source) VALUES ('stmts', 'stmts', '{}', 'UI') RETURNING id`)).rows[0].id;
    const checks = (await t.db.query<{ id: string }>(
      `INSERT INTO checks (canary_id, type, name, status, labels)
       SELECT $1, 'http', 'c-' || i, 'healthy', jsonb_build_object('group', 'g' || i) FROM generate_series(0, $2) i RETURNING id`,
      [canary, SENDS])).rows.map((r) => r.id);
    await t.db.query(
      `INSERT INTO notifications (name, events, filter, custom_services)
       SELECT 'stmts-' || i, '{check.failed}', 'check.labels.group == "g' || i || '"',
              jsonb_build_array(jsonb_build_object('url', 'generic+' || $1 || '/hook/' || i))
       FROM generate_series(0, $2) i`, [rec.url, SENDS]);
    const sent = async () => (await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notification_send_history WHERE status = 'sent'`)).rows[0].n;
    const queued = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM event_queue')).rows[0].n;

    // warm-up: caches loaded, statements prepared on some connections
    await t.db.query(`UPDATE checks SET status = 'unhealthy' WHERE id = $1`, [checks[0]]);
    await until(async () => (await sent()) === 1, 'the warm-up send');
    await until(async () => (await queued()) === 0, 'the queue empty');

    let own = 0;
    const database = new URL(t.config.DATABASE_URL!).pathname.slice(1);
    const { statements } = await counting(database, async () => {
      await t.db.query(`UPDATE checks SET status = 'unhealthy' WHERE id = ANY($1::uuid[])`, [checks.slice(1)]);
      own++;
      await until(async () => { own += 2; return (await sent()) === SENDS + 1 && (await queued()) === 0; }, `${SENDS} sends`);
      // the last finishes' NOTIFYs handled
      await new Promise((r) => setTimeout(r, 300));
    });
    expect(rec.requests.filter((r) => r.pathname.startsWith('/hook/'))).toHaveLength(SENDS + 1);
    const perSend = (statements - own) / SENDS;
    console.log(`statements per send: ${perSend.toFixed(2)} (${statements - own} for ${SENDS} sends)`);
    if (process.env.STMTS_DEBUG) console.log([...texts].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n}\t${k}`).join('\n'));
    // 16.6 before the consumer and send path were cut down (20:13 UTC 2026-11-27), 4.7 after: per send the check read,
    // the playbook triggers' look-up, the send row's enqueue, the history insert with its digest facts, a share of the
    // batched finish and of the batches' BEGIN, claim, DELETE and COMMIT
    expect(perSend).toBeLessThan(6);
  });
});
