import type pg from 'pg';
import type { DemoSet } from '../../lib/demo.js';

/** A device a demo person signs in from: what the sign-in activity list shows as device and IP. */
interface DemoDevice {
  ip: string;
  userAgent: string;
}

const LAPTOP: DemoDevice = {
  ip: '203.0.113.24',
  userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
};
const WORKSTATION: DemoDevice = {
  ip: '198.51.100.7',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
};
const PHONE: DemoDevice = {
  ip: '192.0.2.145',
  userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
};
/** Documentation address (RFC 5737) for the one attempt nobody recognises. */
const UNKNOWN: DemoDevice = { ip: '192.0.2.250', userAgent: 'python-requests/2.32.3' };

interface DemoEvent {
  type: string;
  method: string | null;
  aal: string | null;
  success: boolean;
  device: DemoDevice;
  /** Days and hours before the load. */
  ago: { days: number; hours: number };
  details?: Record<string, unknown>;
}

/**
 * One person's last 30 days: a sign-in every few days alternating two devices (the i-th person's pattern shifted by
 * i so the lists differ), a sign-out, a wrong password followed by a success, and for some a factor enrolment.
 * Exported for the demo test.
 */
export function demoAuthEvents(index: number): DemoEvent[] {
  const events: DemoEvent[] = [];
  const devices = index % 2 === 0 ? [LAPTOP, WORKSTATION] : [WORKSTATION, PHONE];
  for (let day = 1 + (index % 3), k = index; day <= 29; day += 4, k++) {
    const device = devices[k % 2];
    events.push({ type: 'login', method: 'password', aal: 'aal1', success: true, device, ago: { days: day, hours: 9 - (index % 4) } });
  }
  events.push({ type: 'logout', method: null, aal: null, success: true, device: devices[0], ago: { days: 1 + (index % 3), hours: 1 } });
  events.push({
    type: 'login_failed', method: 'password', aal: null, success: false, device: devices[1], ago: { days: 12, hours: 8 },
    details: { reason: 'invalid_credentials' },
  });
  events.push({ type: 'login', method: 'password', aal: 'aal1', success: true, device: devices[1], ago: { days: 12, hours: 7 } });
  if (index === 0) {
    events.push({ type: 'totp_enrolled', method: 'totp', aal: 'aal1', success: true, device: LAPTOP, ago: { days: 20, hours: 3 } });
    events.push({ type: 'lookup_regenerated', method: 'lookup_secret', aal: 'aal2', success: true, device: LAPTOP, ago: { days: 20, hours: 3 } });
    events.push({
      type: 'login_failed', method: 'password', aal: null, success: false, device: UNKNOWN, ago: { days: 5, hours: 2 },
      details: { reason: 'invalid_credentials' },
    });
  }
  if (index === 3) {
    events.push({
      type: 'webauthn_added', method: 'webauthn', aal: 'aal1', success: true, device: WORKSTATION, ago: { days: 16, hours: 4 },
      details: { name: 'YubiKey 5C' },
    });
  }
  return events;
}

/** Sign-in activity for the demo people (foundation set) over the last 30 days. */
export const authEventsDemo: DemoSet = {
  name: 'auth-events',
  async load(client: pg.PoolClient) {
    const { rows: people } = await client.query<{ id: string }>(
      `SELECT id FROM people WHERE email LIKE '%@example.com' AND deleted_at IS NULL AND type IS DISTINCT FROM 'agent' ORDER BY email`,
    );
    for (const [index, person] of people.entries()) {
      for (const e of demoAuthEvents(index)) {
        await client.query(
          `INSERT INTO auth_events (person_id, type, method, aal, success, ip, user_agent, details, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() - make_interval(days => $9, hours => $10))`,
          [person.id, e.type, e.method, e.aal, e.success, e.device.ip, e.device.userAgent, e.details ?? {}, e.ago.days, e.ago.hours],
        );
      }
    }
  },
};
