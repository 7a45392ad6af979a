import type pg from 'pg';
import type { DemoSet } from '../../lib/demo.js';

/**
 * The notifications' demo (issue 15 "Demo"): one rule per recipient kind (a person, a team, an email address through
 * the system SMTP) and one paused by a failing filter, an active silence on the failing check and an expired one by
 * filter, a week of send history on the demo checks in every status (sent, error, pending, cancelled,
 * repeat-interval, silenced), and a couple of events that failed their last attempt for the Event Queue page. Loaded
 * once (demo_data_sets); rules are looked up by name so an installation's own rules of those names stay.
 */

const NS_PER_MIN = 60_000_000_000;
/** The demo's failing check (health.ts) and the healthy ones its history also names. */
const FAILING_CHECK = 'billing-api';
const OTHER_CHECKS = ['console-healthz', 'console-port', 'shell-echo'];

/** The demo rules; exported for the demo test (each passes validateRule once ids are filled in). */
export const DEMO_RULES = [
  {
    name: 'check-failures-to-alice', events: ['check.failed', 'check.passed'], recipient: { person: 'alice.nguyen@example.com' },
    title: null, filter: null, repeat_interval: '1h', wait_for: 5 * NS_PER_MIN,
  },
  {
    name: 'billing-checks-to-payments', events: ['check.failed'], recipient: { team: 'Payments' },
    title: 'Billing check {{ .check.name }} failed', filter: `check.name == '${FAILING_CHECK}'`, repeat_interval: '4h', wait_for: null,
  },
  {
    name: 'health-to-oncall-email', events: ['check.failed', 'check.passed'], recipient: { email: 'oncall@example.com' },
    title: null, filter: null, repeat_interval: null, wait_for: null,
  },
  {
    name: 'unhealthy-pods-paused', events: ['config.unhealthy'], recipient: { person: 'dmitri.volkov@example.com' },
    title: null, filter: "config.tags.team == 'platform'", repeat_interval: '1d', wait_for: null,
    error: 'filter: no such key: team (paused for 1h)',
  },
] as const;

type Rule = (typeof DEMO_RULES)[number];

async function idOf(c: pg.PoolClient, sql: string, value: string): Promise<string | null> {
  return (await c.query<{ id: string }>(sql, [value])).rows[0]?.id ?? null;
}

async function insertRule(c: pg.PoolClient, r: Rule, owner: string | null): Promise<string | null> {
  const exists = await idOf(c, 'SELECT id FROM notifications WHERE name = $1 AND deleted_at IS NULL', r.name);
  if (exists) return null;
  const rec = r.recipient as { person?: string; team?: string; email?: string };
  const person = rec.person ? await idOf(c, 'SELECT id FROM people WHERE email = $1 AND deleted_at IS NULL', rec.person) : null;
  const team = rec.team ? await idOf(c, 'SELECT id FROM teams WHERE name = $1 AND deleted_at IS NULL', rec.team) : null;
  const custom = rec.email ? JSON.stringify([{ name: rec.email, url: `smtp://system/?To=${encodeURIComponent(rec.email)}` }]) : null;
  if ((rec.person && !person) || (rec.team && !team)) return null; // the foundation set was not loaded
  const error = 'error' in r ? r.error : null;
  const { rows } = await c.query<{ id: string }>(
    `INSERT INTO notifications (name, namespace, events, title, filter, repeat_interval, wait_for, person_id, team_id,
       custom_services, error, error_at, source, created_by)
     VALUES ($1, 'default', $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $10::text IS NULL THEN NULL ELSE now() END, 'UI', $11)
     RETURNING id`,
    [r.name, r.events, r.title, r.filter, r.repeat_interval, r.wait_for, person, team, custom, error, owner],
  );
  return rows[0].id;
}

interface Check { id: string; name: string }

/** A week of sends: every rule, every status, oldest first; deterministic (the same rows on every installation). */
function historyPlan(): Array<{ rule: number; check: 'failing' | number; status: string; hoursAgo: number }> {
  const plan: Array<{ rule: number; check: 'failing' | number; status: string; hoursAgo: number }> = [];
  const statuses = ['sent', 'sent', 'error', 'repeat-interval', 'sent', 'cancelled', 'silenced', 'sent', 'error'];
  for (let i = 0; i < 36; i++) {
    plan.push({ rule: i % 3, check: i % 4 === 0 ? i % OTHER_CHECKS.length : 'failing', status: statuses[i % statuses.length], hoursAgo: 168 - i * 4.5 });
  }
  plan.push({ rule: 0, check: 'failing', status: 'pending', hoursAgo: 0.05 });
  plan.push({ rule: 2, check: 'failing', status: 'pending', hoursAgo: 0.02 });
  return plan;
}

/** The failed demo events' ids: fixed, so the rows are never added twice. */
const DEMO_EVENT_IDS = [
  '0193a1d0-0000-7000-8000-00000000de01', '0193a1d0-0000-7000-8000-00000000de02', '0193a1d0-0000-7000-8000-00000000de03',
];

const ERRORS = [
  'smtp: no system SMTP: create an email connection named "system" or set SMTP_HOST',
  'dial tcp 10.0.4.12:587: i/o timeout (4 attempts)',
];

export const notificationsDemo: DemoSet = {
  name: 'notifications',
  async load(c) {
    const owner = await idOf(c, 'SELECT id FROM people WHERE email = $1 AND deleted_at IS NULL', 'alice.nguyen@example.com');
    const ruleIds: string[] = [];
    for (const r of DEMO_RULES) {
      const id = await insertRule(c, r, owner);
      if (id) ruleIds.push(id);
    }
    const checks = (await c.query<Check>(
      'SELECT DISTINCT ON (name) id, name FROM checks WHERE name = ANY($1::text[]) AND deleted_at IS NULL ORDER BY name, created_at',
      [[FAILING_CHECK, ...OTHER_CHECKS]],
    )).rows;
    const failing = checks.find((x) => x.name === FAILING_CHECK);
    const others = checks.filter((x) => x.name !== FAILING_CHECK);

    // silences: an active one on the failing check, an expired one by filter
    const silence = failing ? (await c.query<{ id: string }>(
      `INSERT INTO notification_silences (name, namespace, description, check_id, "from", until, recursive, source, created_by)
       SELECT 'billing-api-maintenance', 'default', 'Billing API is being migrated; it is known to be down', $1,
               now() - interval '2 hours', now() + interval '7 days', false, 'UI', $2
        WHERE NOT EXISTS (SELECT 1 FROM notification_silences WHERE name = 'billing-api-maintenance' AND deleted_at IS NULL)
       RETURNING id`,
      [failing.id, owner],
    )).rows[0]?.id ?? null : null;
    await c.query(
      `INSERT INTO notification_silences (name, namespace, description, filter, "from", until, recursive, source, created_by)
       SELECT 'database-upgrade', 'default', 'Database upgrade window (over)', $1, now() - interval '10 days',
               now() - interval '9 days', false, 'UI', $2
        WHERE NOT EXISTS (SELECT 1 FROM notification_silences WHERE name = 'database-upgrade' AND deleted_at IS NULL)`,
      ["check.name.startsWith('db-')", owner],
    );

    // the history: only with the rules and checks this load made (an installation's own stay as they are)
    if (ruleIds.length >= 3 && failing) {
      const rules = (await c.query<{ id: string; person_id: string | null; team_id: string | null; custom_services: unknown }>(
        'SELECT id, person_id, team_id, custom_services FROM notifications WHERE id = ANY($1::uuid[])', [ruleIds],
      )).rows;
      const byId = new Map(rules.map((r) => [r.id, r]));
      const lastSent = new Map<string, string>();
      for (const [i, p] of historyPlan().entries()) {
        const rule = byId.get(ruleIds[p.rule])!;
        const check = p.check === 'failing' ? failing : others[p.check] ?? failing;
        const down = check.id === failing.id;
        const event = down ? 'check.failed' : 'check.passed';
        const target = rule.person_id ? { kind: 'person', person_id: rule.person_id }
          : rule.team_id ? { kind: 'team', team_id: rule.team_id, index: 0 } : { kind: 'custom', index: 0 };
        const recipient = target.kind === 'custom' ? { ...target, email: 'oncall@example.com' } : target;
        // a held send as the pipeline holds it (wait_for): its sweeper checks the check again when due
        const payload = p.status === 'pending' ? JSON.stringify({
          notification_id: rule.id, event_name: event, source_event_id: check.id, resource_id: check.id, resource_kind: 'check',
          recipient: target, waited: true,
        }) : null;
        const key = `${rule.id}:${check.id}`;
        const parent = p.status === 'repeat-interval' ? lastSent.get(key) ?? null : null;
        const status = p.status === 'repeat-interval' && !parent ? 'sent' : p.status;
        const body = `**${check.name}** is ${down ? 'unhealthy' : 'healthy'}\n\n${down ? 'dial tcp 127.0.0.1:1: connect: connection refused' : 'All checks are passing'}`;
        const { rows } = await c.query<{ id: string }>(
          `INSERT INTO notification_send_history (notification_id, body, status, source_event, resource_id, resource_health,
             resource_status, person_id, team_id, error, duration_millis, created_at, first_observed, count, not_before,
             silenced_by, parent_id, recipient, payload)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now() - make_interval(mins => $12), now() - make_interval(mins => $12),
             $13, $14, $15, $16, $17, $18)
           RETURNING id`,
          [rule.id, status === 'silenced' || status === 'cancelled' ? null : body, status, event, check.id,
            down ? 'unhealthy' : 'healthy', down ? 'Failed' : 'Passed', rule.person_id, rule.team_id,
            status === 'error' ? ERRORS[i % ERRORS.length] : null,
            status === 'sent' || status === 'error' ? 120 + ((i * 37) % 900) : null,
            status === 'silenced' ? 100 - i : Math.round(p.hoursAgo * 60), status === 'repeat-interval' ? 1 + (i % 3) : 1,
            status === 'pending' ? new Date(Date.now() + 5 * 60_000).toISOString() : null,
            status === 'silenced' ? silence : null, parent, JSON.stringify(recipient), payload],
        );
        if (status === 'sent') lastSent.set(key, rows[0].id);
      }
    }

    // the Event Queue page: events that failed their last attempt (the consumer takes no more attempts of them)
    await c.query(
      `INSERT INTO event_queue (name, event_id, properties, error, attempts, last_attempt, created_at)
       VALUES ('notification.send', $4, $1, $2, 3, now() - interval '50 minutes', now() - interval '3 hours'),
              ('notification.send', $5, $1, $2, 3, now() - interval '20 minutes', now() - interval '2 hours'),
              ('check.failed', $6, $3, 'rule unhealthy-pods-paused: filter: no such key: team', 3,
               now() - interval '10 minutes', now() - interval '1 hour')
       ON CONFLICT (name, event_id) DO NOTHING`,
      [JSON.stringify({ demo: true }), ERRORS[1], JSON.stringify({ last_runtime: new Date().toISOString() }), ...DEMO_EVENT_IDS],
    );
  },
};
