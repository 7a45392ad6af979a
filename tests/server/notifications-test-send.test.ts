import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecorder, type HttpRecorder } from '../support/http-recorder.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * POST /api/notification/test (issue 15 "Beyond the reference"): the rule as the form holds it is rendered for one
 * resource and sent now to each recipient (a real HTTP peer on loopback), each outcome returned; unsaved edits over a
 * saved rule, masked URLs kept; nothing enters the send history; bad input 400/404; viewers 403.
 */
let t: TestContext;
let rec: HttpRecorder;
let editor: Record<string, string>;
let viewer: Record<string, string>;
let checkId: string;

const hook = (path: string) => `generic+${rec.url}${path}`;
const test = (body: unknown, headers = editor) => t.app.inject({ method: 'POST', url: '/api/notification/test', headers, payload: body as never });

beforeAll(async () => {
  rec = await startRecorder();
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
  viewer = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['viewer'] })).id);
  const canary = (await t.db.query(`INSERT INTO canaries (name, namespace, spec, source) VALUES ('ts-canary', 'n', '{}', 'UI') RETURNING id`)).rows[0].id;
  checkId = (await t.db.query(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', 'ts-check', 'unhealthy') RETURNING id`, [canary])).rows[0].id;
});
afterAll(async () => {
  await t?.close();
  await rec?.close();
});

describe('test send', () => {
  it('renders an unsaved rule for the chosen check and sends to each recipient, reporting each outcome', async () => {
    rec.script('/bad', { status: 500, body: 'nope' });
    const res = await test({
      rule: { events: ['check.failed'], title: 'Test {{.check.name}}', filter: 'check.status == "healthy"', custom_services: [{ url: hook('/ok') }, { url: hook('/bad') }] },
      event: 'check.failed', resource_id: checkId,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.resource).toMatchObject({ kind: 'check', id: checkId, name: 'ts-check' });
    expect(body.filter).toBe(false); // reported, not enforced
    expect(body.title).toBe('Test ts-check');
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(['sent', 'error']);
    expect(body.results[1].error).toMatch(/500/);
    expect(rec.on('/ok')).toHaveLength(1);
    expect(JSON.stringify(rec.on('/ok')[0].json)).toContain('ts-check');
    expect(Number((await t.db.query('SELECT count(*) AS n FROM notification_send_history')).rows[0].n)).toBe(0);
  });

  it('uses a saved rule with the form\'s edits, a masked URL keeping its stored value', async () => {
    const saved = await t.app.inject({
      method: 'POST', url: '/api/db/notifications', headers: { ...editor, prefer: 'return=representation' },
      payload: { name: 'ts-saved', events: ['check.failed', 'check.passed'], custom_services: [{ url: hook('/secret?token=abc') }] },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const { id } = saved.json()[0];
    const masked = (await t.app.inject({ method: 'GET', url: `/api/db/notifications?id=eq.${id}&select=custom_services`, headers: editor })).json()[0].custom_services;
    expect(JSON.stringify(masked)).not.toContain('abc');
    rec.clear();
    const res = await test({ id, rule: { custom_services: masked, title: 'edited' }, event: 'check.passed', resource_id: checkId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().results).toEqual([expect.objectContaining({ status: 'sent' })]);
    expect(JSON.stringify(res.json())).not.toContain('abc');
    expect(rec.on('/secret')[0].query.token).toBe('abc');
  });

  it('refuses bad input and viewers', async () => {
    const base = { rule: { events: ['check.failed'], custom_services: [{ url: hook('/ok') }] }, event: 'check.failed', resource_id: checkId };
    expect((await test({ ...base, event: 'check.passed' })).json().message).toMatch(/not one of the rule's events/);
    expect((await test({ ...base, rule: { ...base.rule, template: '{{define "x"}}{{end}}' } })).statusCode).toBe(400);
    expect((await test({ ...base, rule: { events: ['check.failed'] } })).json().message).toMatch(/recipient is required/);
    expect((await test({ ...base, resource_id: '0190a0a0-0000-7000-8000-000000000000' })).statusCode).toBe(404);
    expect((await test({ ...base, id: '0190a0a0-0000-7000-8000-000000000000' })).statusCode).toBe(404);
    expect((await test({ ...base, extra: 1 })).statusCode).toBe(400);
    expect((await test(base, viewer)).statusCode).toBe(403);
  });
});

describe('quiet hours at save', () => {
  const save = (quiet_hours: unknown) => t.app.inject({
    method: 'POST', url: '/api/db/notifications', headers: editor,
    payload: { name: `qh-${Math.random().toString(36).slice(2)}`, events: ['check.failed'], custom_services: [{ url: hook('/q') }], quiet_hours },
  });

  it('stores valid quiet hours and reads them back from notifications_summary', async () => {
    const q = { timezone: 'Europe/Berlin', days: ['mon', 'fri'], start: '22:00', end: '07:00', except: 'check.type == "http"' };
    const res = await t.app.inject({
      method: 'POST', url: '/api/db/notifications', headers: { ...editor, prefer: 'return=representation' },
      payload: { name: 'qh-ok', events: ['check.failed'], custom_services: [{ url: hook('/q') }], quiet_hours: q },
    });
    expect(res.statusCode, res.body).toBe(201);
    const row = (await t.app.inject({ method: 'GET', url: `/api/db/notifications_summary?id=eq.${res.json()[0].id}&select=quiet_hours,template,properties`, headers: viewer })).json()[0];
    expect(row.quiet_hours).toEqual(q);
  });

  it('refuses malformed quiet hours naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ start: '25:00', end: '07:00' }, 'quiet_hours.start'],
      [{ start: '22:00', end: '22:00' }, 'quiet_hours.end'],
      [{ start: '22:00', end: '07:00', timezone: 'Mars/Base' }, 'quiet_hours.timezone'],
      [{ start: '22:00', end: '07:00', days: ['someday'] }, 'quiet_hours.days[0]'],
      [{ start: '22:00', end: '07:00', except: 'check.status ==' }, 'quiet_hours.except'],
      ['nightly', 'quiet_hours'],
    ];
    for (const [q, path] of cases) {
      const res = await save(q);
      expect(res.statusCode, JSON.stringify(q)).toBe(400);
      expect(res.body).toContain(path);
    }
  });
});
