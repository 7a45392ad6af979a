import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishChange } from '../../server/lib/events.js';
import { recordResult } from '../../server/modules/health/queries.js';
import { inQuietHours, quietHoursEnd } from '../../server/modules/notifications/pipeline/quiet-hours.js';
import { intervalMs } from '../../server/modules/notifications/pipeline/repeat.js';
import { startRecorder, type HttpRecorder } from '../support/http-recorder.js';
import { until } from '../support/poll.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * Held sends (issue 15 "Rules" and "Beyond the reference"): wait_for (a pending row, cancelled when the check
 * recovered, sent when still failing), digests (a burst for one rule and recipient is one message) and quiet hours.
 * Rules here carry wait_for and group_by_interval of about a second, written straight to the table (the API refuses
 * wait_for under a minute), so the sweeper's real timers run the test.
 */

let t: TestContext;
let rec: HttpRecorder;
beforeAll(async () => {
  rec = await startRecorder();
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
});
afterAll(async () => {
  await t?.close();
  await rec?.close();
});

let seq = 0;
async function makeCheck(db: pg.Pool, name = `wf-${++seq}`) {
  const canary = await db.query<{ id: string }>(
    `INSERT INTO canaries (name, namespace, spec, source) VALUES ($1, 'waitfor', '{}', 'UI') RETURNING id`, [`canary-${++seq}-${Date.now()}`]);
  const check = await db.query<{ id: string }>(
    `INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', $2, 'healthy') RETURNING id`, [canary.rows[0].id, name]);
  return { canaryId: canary.rows[0].id, checkId: check.rows[0].id, name };
}
async function flip(check: { checkId: string; canaryId: string }, pass: boolean) {
  await recordResult(t.db, {
    checkId: check.checkId, canaryId: check.canaryId, time: new Date(), duration: 5, pass, invalid: false,
    message: null, error: pass ? null : 'down', details: null, severity: null, nextRuntime: null,
  });
}
async function rule(path: string, extra: Record<string, unknown>): Promise<string> {
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO notifications (name, events, custom_services, wait_for, group_by_interval, quiet_hours)
     VALUES ($1, '{check.failed}', $2, $3, $4, $5) RETURNING id`,
    [`rule-${path}-${++seq}`, JSON.stringify([{ url: `generic+${rec.url}/${path}` }]), extra.wait_for ?? null,
      extra.group_by_interval ?? null, extra.quiet_hours ? JSON.stringify(extra.quiet_hours) : null]);
  return rows[0].id;
}
interface Row { id: string; status: string; count: number; error: string | null; not_before: Date | null; resource_id: string; body: string | null }
const history = async (ruleId: string) => (await t.db.query<Row>(
  'SELECT * FROM notification_send_history WHERE notification_id = $1 ORDER BY created_at, id', [ruleId])).rows;
const SECOND_NS = 1_000_000_000;

describe('wait_for', () => {
  it('a check that recovers before wait_for ends: the pending row becomes cancelled, nothing is sent', async () => {
    const id = await rule('recovered', { wait_for: 1.5 * SECOND_NS });
    const check = await makeCheck(t.db);
    await flip(check, false);
    const pending = await until(async () => (await history(id))[0], 'the pending row');
    expect(pending.status).toBe('pending');
    expect(pending.not_before).not.toBeNull();
    await flip(check, true);
    const done = await until(async () => { const r = (await history(id))[0]; return r.status === 'cancelled' && r; }, 'the cancelled row');
    expect(done).toMatchObject({ id: pending.id, error: 'recovered before wait_for ended' });
    expect(rec.on('/recovered')).toHaveLength(0);
  });

  it('a check still failing when wait_for ends is sent (the same row); a second failure meanwhile counts on it', async () => {
    const id = await rule('still', { wait_for: 2 * SECOND_NS });
    const check = await makeCheck(t.db);
    await flip(check, false);
    const pending = await until(async () => (await history(id))[0], 'the pending row');
    await flip(check, true);
    await flip(check, false);
    await until(async () => (await history(id))[0]?.count === 2, 'the second failure counted on the pending row');
    const sent = await until(async () => { const r = await history(id); return r.length === 1 && r[0].status === 'sent' && r[0]; }, 'the send');
    expect(sent.id).toBe(pending.id);
    expect(sent.body).toBeTruthy();
    expect(rec.on('/still')).toHaveLength(1);
  });

  it('a check deleted while waiting: cancelled', async () => {
    const id = await rule('gone', { wait_for: 1 * SECOND_NS });
    const check = await makeCheck(t.db);
    await flip(check, false);
    await until(async () => (await history(id))[0], 'the pending row');
    await t.db.query('UPDATE checks SET deleted_at = now() WHERE id = $1', [check.checkId]);
    const row = await until(async () => { const r = (await history(id))[0]; return r.status !== 'pending' && r.status !== 'evaluating-waitfor' && r; }, 'the outcome');
    expect(row.status).toBe('cancelled');
    expect(rec.on('/gone')).toHaveLength(0);
  });
});

describe('digests and quiet hours', () => {
  it('a burst for one rule and recipient within group_by_interval: the first at once, the rest as one message', async () => {
    const id = await rule('burst', { group_by_interval: 60 * SECOND_NS });
    const checks = [await makeCheck(t.db, 'burst-a'), await makeCheck(t.db, 'burst-b'), await makeCheck(t.db, 'burst-c')];
    await flip(checks[0], false);
    await until(async () => (await history(id))[0]?.status === 'sent', 'the first send');
    await flip(checks[1], false);
    await flip(checks[2], false);
    const held = await until(async () => { const r = await history(id); return r.length === 3 && r; }, 'the burst held');
    expect(held.map((r) => r.status)).toEqual(['sent', 'pending', 'pending']);
    expect(new Set(held.slice(1).map((r) => new Date(r.not_before!).getTime())).size).toBe(1);
    // the window ends
    await t.db.query("UPDATE notification_send_history SET not_before = now() WHERE notification_id = $1 AND status = 'pending'", [id]);
    await publishChange(t.db, { relation: 'notification_send_history' });
    await until(async () => { const r = await history(id); return r.length === 3 && r.every((x) => x.status === 'sent') && r; }, 'the digest sent');
    const calls = rec.on('/burst');
    expect(calls).toHaveLength(2);
    expect(calls[1].body).toContain('burst-b');
    expect(calls[1].body).toContain('burst-c');
  });

  it('quiet hours hold sends (pending until they end), released as one digest; the CEL exception goes through', async () => {
    const always = { timezone: 'UTC', start: '00:00', end: '23:59', except: 'check.name == "urgent"' };
    const id = await rule('quiet', { quiet_hours: always });
    const a = await makeCheck(t.db, 'quiet-a');
    const b = await makeCheck(t.db, 'quiet-b');
    const urgent = await makeCheck(t.db, 'urgent');
    await flip(a, false);
    await flip(b, false);
    await flip(urgent, false);
    // the exception's send is delivered after its row commits (sending → sent)
    await until(async () => { const r = await history(id); return r.length === 3 && r.every((x) => x.status !== 'sending'); }, 'three rows');
    const rows = await history(id);
    expect(rows.filter((r) => r.status === 'pending')).toHaveLength(2);
    expect(rows.find((r) => r.resource_id === urgent.checkId)?.status).toBe('sent');
    expect(rec.on('/quiet')).toHaveLength(1);
    // the quiet hours end: their rows come due
    await t.db.query("UPDATE notification_send_history SET not_before = now() WHERE notification_id = $1 AND status = 'pending'", [id]);
    await publishChange(t.db, { relation: 'notification_send_history' });
    await until(async () => (await history(id)).every((r) => r.status === 'sent'), 'the held sends released');
    expect(rec.on('/quiet')).toHaveLength(2);
  });

  it('quiet hours windows: days, across midnight, in a timezone; the end', () => {
    const night = { timezone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '22:00', end: '07:00' };
    expect(inQuietHours(night, new Date('2026-11-23T22:30:00Z'))).toBe(true); // Mon 23:30 Berlin
    expect(inQuietHours(night, new Date('2026-11-24T05:30:00Z'))).toBe(true); // Tue 06:30, from Monday's window
    expect(inQuietHours(night, new Date('2026-11-24T06:30:00Z'))).toBe(false); // Tue 07:30
    expect(inQuietHours(night, new Date('2026-11-28T22:30:00Z'))).toBe(false); // Sat 23:30
    expect(quietHoursEnd(night, new Date('2026-11-23T22:30:00Z')).toISOString()).toBe('2026-11-24T06:00:00.000Z');
    expect(intervalMs('1m')).toBe(60_000);
    expect(intervalMs('1w')).toBe(7 * 86_400_000);
    expect(intervalMs('bogus')).toBeNull();
  });
});
