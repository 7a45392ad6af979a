import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEND_HISTORY_STATUSES } from '../../server/contracts/notifications.js';
import { loadDemoSets } from '../../server/lib/demo.js';
import { foundationDemo } from '../../server/modules/demo/foundation.js';
import { healthDemo } from '../../server/modules/demo/health.js';
import { DEMO_SETS } from '../../server/modules/demo/index.js';
import { DEMO_RULES, notificationsDemo } from '../../server/modules/demo/notifications.js';
import { validateRule, validateSilence } from '../../server/modules/notifications/validate.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * The notifications' demo (issue 15 "Demo"): a rule per recipient kind and a paused one, an active and an expired
 * silence, a week of send history in every status the screens show, failed events for the Event Queue page; every
 * rule and silence passes the console's own validation; a second start adds nothing. Only the sets it builds on are
 * loaded: foundation (people, teams), health (the checks), notifications.
 */

let t: TestContext;
const SETS = [foundationDemo, healthDemo, notificationsDemo];
beforeAll(async () => {
  t = await createTestApp();
  expect(await loadDemoSets(t.db, SETS)).toEqual(['foundation', 'health', 'notifications']);
}, 60_000);
afterAll(() => t?.close());

const counts = async () => (await t.db.query<{ n: number; s: number; h: number; q: number }>(
  `SELECT (SELECT count(*)::int FROM notifications) AS n, (SELECT count(*)::int FROM notification_silences) AS s,
          (SELECT count(*)::int FROM notification_send_history) AS h, (SELECT count(*)::int FROM event_queue) AS q`)).rows[0];

describe('the notifications demo', () => {
  it('is a demo set after health and before the topology (which stays last)', () => {
    const names = DEMO_SETS.map((s) => s.name);
    expect(names.indexOf('notifications')).toBeGreaterThan(names.indexOf('health'));
    expect(names.at(-1)).toBe('topology');
  });

  it('has a rule per recipient kind and a paused one, each valid', async () => {
    const { rows } = await t.db.query(`SELECT * FROM notifications WHERE deleted_at IS NULL ORDER BY name`);
    expect(rows.map((r) => r.name).sort()).toEqual(DEMO_RULES.map((r) => r.name).sort());
    expect(rows.some((r) => r.person_id)).toBe(true);
    expect(rows.some((r) => r.team_id)).toBe(true);
    expect(rows.some((r) => Array.isArray(r.custom_services) && r.custom_services[0].url.startsWith('smtp://system/'))).toBe(true);
    expect(rows.filter((r) => r.error).map((r) => r.name)).toEqual(['unhealthy-pods-paused']);
    for (const r of rows) expect(await validateRule(t.db, r), r.name).toEqual([]);
  });

  it('has an active and an expired silence, each valid', async () => {
    const { rows } = await t.db.query(
      `SELECT *, (until > now() AND "from" <= now()) AS active FROM notification_silences WHERE deleted_at IS NULL ORDER BY name`);
    expect(rows.map((r) => [r.name, r.active])).toEqual([['billing-api-maintenance', true], ['database-upgrade', false]]);
    for (const { active: _a, ...r } of rows) expect(await validateSilence(t.db, r), r.name).toEqual([]);
  });

  it('has a week of history in every status, on the demo checks', async () => {
    const { rows } = await t.db.query<{ status: string; n: number; oldest: Date }>(
      `SELECT status, count(*)::int AS n, min(created_at) AS oldest FROM notification_send_history GROUP BY status`);
    const by = new Map(rows.map((r) => [r.status, r]));
    for (const s of ['sent', 'error', 'pending', 'cancelled', 'repeat-interval', 'silenced']) {
      expect(by.get(s)?.n, s).toBeGreaterThan(0);
      expect(SEND_HISTORY_STATUSES).toContain(s);
    }
    const oldest = Math.min(...rows.map((r) => new Date(r.oldest).getTime()));
    expect(Date.now() - oldest).toBeGreaterThan(6 * 86_400_000);
    const orphans = await t.db.query(`SELECT 1 FROM notification_send_history h LEFT JOIN checks c ON c.id = h.resource_id WHERE c.id IS NULL`);
    expect(orphans.rowCount).toBe(0);
    const links = await t.db.query(
      `SELECT count(*) FILTER (WHERE status = 'silenced' AND silenced_by IS NOT NULL)::int AS silenced,
              count(*) FILTER (WHERE status = 'repeat-interval' AND parent_id IS NOT NULL)::int AS repeated,
              count(*) FILTER (WHERE status = 'error' AND error IS NOT NULL)::int AS errors
       FROM notification_send_history`);
    expect(links.rows[0]).toEqual({ silenced: by.get('silenced')!.n, repeated: by.get('repeat-interval')!.n, errors: by.get('error')!.n });
  });

  it('has events that failed their last attempt, for the Event Queue page', async () => {
    const { rows } = await t.db.query(`SELECT name, attempts, error FROM event_queue WHERE error IS NOT NULL`);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.every((r) => r.attempts >= 3)).toBe(true);
  });

  it('loads once: a second start, or the set loaded again, adds nothing', async () => {
    const before = await counts();
    expect(await loadDemoSets(t.db, SETS)).toEqual([]);
    const client = await t.db.connect();
    try {
      await notificationsDemo.load(client);
    } finally {
      client.release();
    }
    const after = await counts();
    expect(after).toEqual(before);
  });
});
