import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordResult } from '../../server/modules/health/queries.js';
import { configureSenders } from '../../server/modules/notifications/senders/index.js';
import { startRecorder, type HttpRecorder } from '../support/http-recorder.js';
import { until } from '../support/poll.js';
import { createTestApp, makePerson, type TestContext } from './helpers.js';

/**
 * The send pipeline (issue 15 "Rules"): a failing check's event matched to live rules, one notification.send per
 * recipient (person by the system SMTP, team entries, custom services) delivered to real loopback peers; filter,
 * paused rules, repeat interval, silences and dedupe. The app's own event queue consumer does the work.
 */

let t: TestContext;
let rec: HttpRecorder;
let smtp: SMTPServer;
const mails: string[] = [];

beforeAll(async () => {
  rec = await startRecorder();
  smtp = new SMTPServer({
    secure: false, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
    onData(stream, session, cb) {
      stream.on('data', () => undefined);
      stream.on('end', () => { mails.push(session.envelope.rcptTo.map((r) => r.address).join(',')); cb(); });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  const port = String((smtp.server.address() as AddressInfo).port);
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off', SMTP_HOST: '127.0.0.1', SMTP_PORT: port, SMTP_ENCRYPTION: 'None', SMTP_FROM: 'console@example.test' });
  configureSenders({ smtp: { host: '127.0.0.1', port: Number(port), encryption: 'None', from: 'console@example.test' } });
});
afterAll(async () => {
  await t?.close();
  await rec?.close();
  await new Promise<void>((r) => smtp?.close(() => r()));
  configureSenders({ smtp: null });
});

let seq = 0;
async function makeCheck(db: pg.Pool, name = `check-${++seq}`) {
  const canary = await db.query<{ id: string }>(
    `INSERT INTO canaries (name, namespace, spec, source) VALUES ($1, 'pipeline', '{}', 'UI') RETURNING id`, [`canary-${++seq}-${Date.now()}`]);
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

async function rule(fields: Record<string, unknown>): Promise<string> {
  const cols = { name: `rule-${++seq}`, events: ['check.failed'], ...fields };
  const keys = Object.keys(cols);
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO notifications (${keys.join(', ')}) VALUES (${keys.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
    Object.values(cols).map((v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? JSON.stringify(v) : Array.isArray(v) && typeof v[0] === 'object' ? JSON.stringify(v) : v)));
  return rows[0].id;
}

interface Row { id: string; status: string; count: number; parent_id: string | null; silenced_by: string | null; error: string | null; body: string | null; recipient: Record<string, unknown>; person_id: string | null; team_id: string | null; duration_millis: number | null; resource_health: string | null; first_observed: Date; created_at: Date }
const history = async (ruleId: string) => (await t.db.query<Row>(
  'SELECT * FROM notification_send_history WHERE notification_id = $1 ORDER BY created_at, id', [ruleId])).rows;
const hook = (path: string) => `generic+${rec.url}${path}`;

describe('matching and recipients', () => {
  it('a failing check: one send per recipient kind (person by email, each team entry, each custom service), each a history row', async () => {
    const person = await makePerson(t.db, { email: 'oncall@example.test' });
    const team = await t.db.query<{ id: string }>(
      `INSERT INTO teams (name, created_by, spec) VALUES ('sre', $1, $2) RETURNING id`,
      [person.id, { notifications: [{ url: hook('/team/a') }, { url: hook('/team/b'), filter: 'check.name == "nope"' }] }]);
    const check = await makeCheck(t.db, 'api-health');
    const byPerson = await rule({ person_id: person.id });
    const byTeam = await rule({ team_id: team.rows[0].id });
    const custom = await rule({ custom_services: [{ url: hook('/custom/1') }, { url: hook('/custom/2') }] });
    await flip(check, false);

    const p = await until(async () => (await history(byPerson)).find((r) => r.status === 'sent'), 'the email send', 20_000)
      .catch(async (e) => { throw new Error(`${e}: ${JSON.stringify(await history(byPerson))}`); });
    expect(p).toMatchObject({ person_id: person.id, recipient: { kind: 'person', email: 'oncall@example.test' }, resource_health: 'unhealthy' });
    expect(p.body).toBeTruthy();
    expect(mails).toContain('oncall@example.test');
    const teamRows = await until(async () => { const r = await history(byTeam); return r.length === 1 && r[0].status === 'sent' && r; }, 'the team send');
    expect(teamRows[0]).toMatchObject({ status: 'sent', team_id: team.rows[0].id, recipient: { kind: 'team', index: 0 } });
    const customRows = await until(async () => { const r = await history(custom); return r.length === 2 && r.every((x) => x.status === 'sent') && r; }, 'two custom sends');
    expect(customRows.map((r) => r.recipient.index).sort()).toEqual([0, 1]);
    expect(rec.on('/team/a')).toHaveLength(1);
    expect(rec.on('/team/b')).toHaveLength(0); // the entry's filter
    expect(rec.on('/custom/1')).toHaveLength(1);
    expect(rec.on('/custom/2')).toHaveLength(1);
    // a passing check matches no check.failed rule
    await flip(check, true);
    await t.app.eventQueue.drain();
    expect((await history(custom)).length).toBe(2);
  });

  it('the rule filter (CEL over {check, canary}) selects the resources; a filter failing at run time pauses the rule', async () => {
    const picked = await rule({ filter: 'check.name.startsWith("db-")', custom_services: [{ url: hook('/filter') }] });
    const broken = await rule({ filter: 'check.no_such_field.x == "y"', custom_services: [{ url: hook('/broken') }] });
    const db = await makeCheck(t.db, 'db-primary');
    const web = await makeCheck(t.db, 'web-frontend');
    await flip(db, false);
    await flip(web, false);
    // delivered after its row commits: sending, then sent
    await until(async () => (await history(picked))[0]?.status === 'sent', 'the filtered send');
    await until(async () => (await t.db.query('SELECT error_at FROM notifications WHERE id = $1', [broken])).rows[0].error_at, 'the paused rule');
    await t.app.eventQueue.drain();
    expect((await history(picked)).map((r) => r.status)).toEqual(['sent']);
    expect(rec.on('/filter')).toHaveLength(1);
    const b = (await t.db.query('SELECT error FROM notifications WHERE id = $1', [broken])).rows[0];
    expect(b.error).toMatch(/^filter: /);
    expect(await history(broken)).toEqual([]);
    // paused: a later event is not even evaluated (error_at stays)
    const before = (await t.db.query('SELECT error_at FROM notifications WHERE id = $1', [broken])).rows[0].error_at;
    const other = await makeCheck(t.db, 'other');
    await flip(other, false);
    await until(async () => (await t.db.query("SELECT 1 FROM event_queue WHERE name = 'check.failed' AND event_id = $1", [other.checkId])).rowCount === 0, 'the event consumed');
    expect((await t.db.query('SELECT error_at FROM notifications WHERE id = $1', [broken])).rows[0].error_at).toEqual(before);
    expect(rec.on('/broken')).toHaveLength(0);
  });
});

describe('repeat interval, silences, dedupe', () => {
  it('a repeat inside repeat_interval is a repeat-interval row whose parent is the sent one; the next repeat counts on it', async () => {
    const id = await rule({ repeat_interval: '1h', custom_services: [{ url: hook('/repeat') }] });
    const check = await makeCheck(t.db);
    await flip(check, false);
    const sent = await until(async () => (await history(id)).find((r) => r.status === 'sent'), 'the first send');
    await flip(check, true);
    await flip(check, false);
    const repeated = await until(async () => (await history(id)).find((r) => r.status === 'repeat-interval'), 'the repeat row');
    expect(repeated.parent_id).toBe(sent.id);
    await flip(check, true);
    await flip(check, false);
    await until(async () => (await history(id)).find((r) => r.status === 'repeat-interval' && r.count === 2), 'the repeat counted');
    const rows = await history(id);
    expect(rows.map((r) => r.status).sort()).toEqual(['repeat-interval', 'sent']);
    const r2 = rows.find((r) => r.status === 'repeat-interval')!;
    expect(new Date(r2.first_observed).getTime()).toBeLessThan(new Date(r2.created_at).getTime());
    expect(rec.on('/repeat')).toHaveLength(1);
  });

  it('an active silence on the check: a silenced row naming it, counted again on the next event; nothing sent', async () => {
    const id = await rule({ custom_services: [{ url: hook('/silenced') }] });
    const check = await makeCheck(t.db);
    const silence = await t.db.query<{ id: string }>(
      `INSERT INTO notification_silences (name, namespace, check_id, "from", until, source) VALUES ('s', 'default', $1, now() - interval '1 minute', now() + interval '1 hour', 'UI') RETURNING id`,
      [check.checkId]);
    await flip(check, false);
    const row = await until(async () => (await history(id))[0], 'the silenced row');
    expect(row).toMatchObject({ status: 'silenced', silenced_by: silence.rows[0].id, count: 1 });
    await flip(check, true);
    await flip(check, false);
    await until(async () => (await history(id))[0]?.count === 2, 'the second silenced event counted');
    expect(await history(id)).toHaveLength(1);
    expect(rec.on('/silenced')).toHaveLength(0);
  });

  it('a sender refusing the call (400) is an error row with the error and duration', async () => {
    rec.script('/fails', { status: 400, body: { error: 'bad request' } });
    const id = await rule({ custom_services: [{ url: hook('/fails') }] });
    const check = await makeCheck(t.db);
    await flip(check, false);
    const row = await until(async () => (await history(id)).find((r) => r.status === 'error'), 'the error row', 60_000);
    expect(row.error).toBeTruthy();
    expect(row.duration_millis).not.toBeNull();
  });

  it('a hanging service delays no other send: the other arrives while the hang goes on (deliveries leave the consumer)', async () => {
    rec.script('/hangs', { hang: true });
    const hanging = await rule({ custom_services: [{ url: hook('/hangs') }] });
    const other = await rule({ custom_services: [{ url: hook('/other') }] });
    const first = await makeCheck(t.db);
    const second = await makeCheck(t.db);
    await flip(first, false);
    await until(async () => rec.on('/hangs').length === 1, 'the hanging call made');
    await flip(second, false);
    await until(async () => rec.on('/other').length === 2 && rec.on('/hangs').length === 2, 'both sends to the other service');
    const rows = await history(hanging);
    expect(rows.map((r) => r.status)).toEqual(['sending', 'sending']);
    await until(async () => (await history(other)).every((r) => r.status === 'sent'), 'the other rows sent');
  });
});
