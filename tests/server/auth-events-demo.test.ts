import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSets } from '../../server/lib/demo.js';
import { DEMO_SETS } from '../../server/modules/demo/index.js';
import { createTestApp, type TestContext } from './helpers.js';

/** Demo sign-in activity (issue 17 "Data, libraries, demo"): the demo people's last 30 days in auth_events. */

let t: TestContext;
const SETS = DEMO_SETS.filter((s) => s.name === 'foundation' || s.name === 'auth-events');

beforeAll(async () => {
  t = await createTestApp();
  expect(await loadDemoSets(t.db, SETS)).toEqual(['foundation', 'auth-events']);
}, 60_000);
afterAll(() => t?.close());

describe('auth-events demo', () => {
  it('is registered after the foundation set (its people) and loads once', async () => {
    const names = DEMO_SETS.map((s) => s.name);
    expect(names.indexOf('auth-events')).toBeGreaterThan(names.indexOf('foundation'));
    expect(await loadDemoSets(t.db, SETS)).toEqual([]);
  });

  it('gives every demo person sign-ins from two devices over the last 30 days, and a failed attempt', async () => {
    const { rows } = await t.db.query<{ email: string; logins: number; devices: number; ips: number; failed: number; oldest: number; newest: number }>(
      `SELECT p.email,
              count(*) FILTER (WHERE e.type = 'login' AND e.success)::int AS logins,
              count(DISTINCT e.user_agent) FILTER (WHERE e.type = 'login')::int AS devices,
              count(DISTINCT e.ip) FILTER (WHERE e.type = 'login')::int AS ips,
              count(*) FILTER (WHERE NOT e.success)::int AS failed,
              extract(epoch FROM now() - min(e.created_at))::int / 86400 AS oldest,
              extract(epoch FROM now() - max(e.created_at))::int AS newest
       FROM people p JOIN auth_events e ON e.person_id = p.id
       WHERE p.email LIKE '%@example.com' GROUP BY p.email ORDER BY p.email`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const r of rows) {
      expect(r.logins).toBeGreaterThanOrEqual(5);
      expect(r.devices).toBe(2);
      expect(r.ips).toBe(2);
      expect(r.failed).toBeGreaterThanOrEqual(1);
      expect(r.oldest).toBeLessThan(30);
      expect(r.newest).toBeGreaterThan(0);
    }
  });

  it('has a factor enrolment and an attempt from an unknown client', async () => {
    const { rows } = await t.db.query(
      `SELECT e.type, e.method, e.ip FROM auth_events e JOIN people p ON p.id = e.person_id
       WHERE e.type IN ('totp_enrolled', 'webauthn_added') OR e.ip = '192.0.2.250' ORDER BY e.type`,
    );
    expect(rows.map((r) => r.type)).toEqual(['login_failed', 'totp_enrolled', 'webauthn_added']);
  });
});
