import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSilence } from '../../server/modules/notifications/silences/match.js';
import { parseTimeExpr } from '../../server/modules/notifications/silences/date-math.js';
import type { EventResource } from '../../server/modules/events/types.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * Part E of issue 15: rules and silences written through /api/db and POST /api/notification/silence pass the save-time
 * validation (400 naming the path, nothing stored), CR rows are read-only (403 naming the source), viewers cannot
 * write, URL credentials read back masked and a mask written back keeps the value; findSilence matches by id, canary,
 * recursively by path, by CEL and by selector; the reference UI's calls answer as written.
 */

let t: TestContext;
let editor: Record<string, string>;
let viewer: Record<string, string>;
let personId: string;
let checkId: string;
let canaryId: string;
let parentComp: string;
let childComp: string;

const db = (method: 'GET' | 'POST' | 'PATCH', url: string, headers: Record<string, string>, payload?: unknown, extra: Record<string, string> = {}) =>
  t.app.inject({ method, url: `/api/db/${url}`, headers: { ...headers, ...extra }, payload: payload as never });
const api = (method: 'GET' | 'POST', url: string, payload?: unknown, headers = editor) =>
  t.app.inject({ method, url, headers, payload: payload as never });
const count = async (table: string) => Number((await t.db.query(`SELECT count(*) AS n FROM ${table} WHERE deleted_at IS NULL`)).rows[0].n);

beforeAll(async () => {
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
  const e = await makePerson(t.db, { roles: ['editor'] });
  personId = e.id;
  editor = await sessionHeaders(t.db, e.id);
  viewer = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['viewer'] })).id);
  canaryId = (await t.db.query(`INSERT INTO canaries (name, namespace, spec, source) VALUES ('api-canary', 'n', '{}', 'UI') RETURNING id`)).rows[0].id;
  checkId = (await t.db.query(`INSERT INTO checks (canary_id, type, name, status, labels) VALUES ($1, 'http', 'api-check', 'unhealthy', '{"team":"payments"}') RETURNING id`, [canaryId])).rows[0].id;
  parentComp = (await t.db.query(`INSERT INTO components (name, type, external_id) VALUES ('parent', 'Service', 'p') RETURNING id`)).rows[0].id;
  childComp = (await t.db.query(`INSERT INTO components (name, type, external_id, parent_id, path) VALUES ('child', 'Pod', 'c', $1, $2) RETURNING id`, [parentComp, parentComp])).rows[0].id;
});
afterAll(async () => { await t?.close(); });

const rule = (over: Record<string, unknown> = {}) => ({ name: `r-${Math.random().toString(36).slice(2)}`, events: ['check.failed'], person_id: personId, ...over });

describe('rules through /api/db', () => {
  it('refuses every bad input with a 400 naming the path, storing nothing', async () => {
    const before = await count('notifications');
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [rule({ events: ['check.passed', 'check.faild'] }), 'events[1]', /unknown event "check.faild"/],
      [rule({ events: [] }), 'events', /at least one event/],
      [rule({ filter: 'check.status ==' }), 'filter', /invalid CEL/],
      [rule({ filter: 'config.type == "x"' }), 'filter', /undeclared reference to 'config'/],
      [rule({ team_id: '00000000-0000-0000-0000-000000000001' }), 'team_id', /only one recipient kind/],
      [rule({ person_id: '00000000-0000-0000-0000-000000000001' }), 'person_id', /unknown person/],
      [rule({ person_id: null }), 'person_id', /a recipient is required/],
      [rule({ person_id: null, team_id: '00000000-0000-0000-0000-000000000002' }), 'team_id', /unknown team/],
      [rule({ person_id: null, custom_services: [{ connection: 'connection://nope/missing' }] }), 'custom_services[0].connection', /unknown connection/],
      [rule({ person_id: null, custom_services: [{ url: 'ftp://host/x' }] }), 'custom_services[0].url', /unsupported scheme "ftp"/],
      [rule({ wait_for: 30_000_000_000 }), 'wait_for', /Duration must be greater than 1 minute/],
      [rule({ wait_for: '30s' }), 'wait_for', /Duration must be greater than 1 minute/],
      [rule({ repeat_interval: 'often' }), 'repeat_interval', /invalid duration/],
    ];
    for (const [body, path, msg] of cases) {
      const res = await db('POST', 'notifications', editor, body);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(400);
      const j = res.json();
      expect(Object.keys(j.details ?? {}), res.body).toContain(path);
      expect(j.details[path]).toMatch(msg);
      expect(j.message).toContain(path);
    }
    expect(await count('notifications')).toBe(before);
  });

  it('stores a valid rule (wait_for as text in ns, "1m" repeat), patches it, refuses a bad patch, soft deletes', async () => {
    const res = await db('POST', 'notifications', editor, rule({ wait_for: '5m', repeat_interval: '1m', filter: 'check.type == "http" && canary.name != ""' }), { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    const [row] = res.json();
    expect(row.wait_for).toBe(300_000_000_000);
    expect(row.source).toBe('UI');
    const bad = await db('PATCH', `notifications?id=eq.${row.id}`, editor, { events: ['nope.event'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details['events[0]']).toMatch(/unknown event/);
    const ok = await db('PATCH', `notifications?id=eq.${row.id}`, editor, { title: 'Check {{.check.name}} failed' });
    expect(ok.statusCode, ok.body).toBe(204);
    const del = await db('PATCH', `notifications?id=eq.${row.id}`, editor, { deleted_at: 'now()' });
    expect(del.statusCode, del.body).toBe(204);
    expect((await t.db.query('SELECT deleted_at FROM notifications WHERE id = $1', [row.id])).rows[0].deleted_at).not.toBeNull();
  });

  it('viewers cannot write; CR rows are read-only naming their source', async () => {
    expect((await db('POST', 'notifications', viewer, rule())).statusCode).toBe(403);
    const cr = (await t.db.query(`INSERT INTO notifications (name, namespace, events, person_id, source) VALUES ('cr-rule', 'default', '{check.failed}', $1, 'KubernetesCRD') RETURNING id`, [personId])).rows[0].id;
    const res = await db('PATCH', `notifications?id=eq.${cr}`, editor, { title: 'x' });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('KubernetesCRD');
    const del = await db('PATCH', `notifications?id=eq.${cr}`, editor, { deleted_at: 'now()' });
    expect(del.statusCode).toBe(403);
  });

  it('reads custom_services URL credentials masked; a mask written back keeps the stored value', async () => {
    const url = 'slack://xoxb-secret-token@C0123';
    const res = await db('POST', 'notifications', editor, rule({ person_id: null, custom_services: [{ name: 's', url, properties: { token: 'abc', channel: 'x' } }] }), { prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json()[0].id;
    const read = (await db('GET', `notifications?id=eq.${id}&select=custom_services`, viewer)).json()[0].custom_services;
    expect(read[0].url).toBe('slack://***@C0123');
    expect(read[0].properties).toEqual({ token: '***', channel: 'x' });
    const summary = (await db('GET', `notifications_summary?id=eq.${id}&select=custom_services`, viewer)).json()[0].custom_services;
    expect(summary[0].url).toBe('slack://***@C0123');
    expect((await db('PATCH', `notifications?id=eq.${id}`, editor, { custom_services: read })).statusCode).toBe(204);
    const stored = (await t.db.query('SELECT custom_services FROM notifications WHERE id = $1', [id])).rows[0].custom_services;
    expect(stored[0].url).toBe(url);
    expect(stored[0].properties.token).toBe('abc');
  });
});

describe('silences', () => {
  it('refuses two ids, no target, from after until, bad date math, bad CEL and selectors (400 by path, nothing stored)', async () => {
    const before = await count('notification_silences');
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 's', check_id: checkId, canary_id: canaryId }, 'canary_id'],
      [{ name: 's' }, 'resource'],
      [{ name: 's', check_id: checkId, from: 'now+2h', until: 'now+1h' }, 'until'],
      [{ name: 's', check_id: checkId, until: 'tomorrow-ish' }, 'until'],
      [{ name: 's', filter: 'check.name ==' }, 'filter'],
      [{ name: 's', selectors: [{ labelSelector: '!!bad==' }] }, 'selectors[0]'],
    ];
    for (const [body, path] of cases) {
      const res = await api('POST', '/api/notification/silence', body);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(400);
      expect(Object.keys(res.json().details ?? {}), res.body).toContain(path);
      const viaDb = await db('POST', 'notification_silences', editor, body);
      expect(viaDb.statusCode, viaDb.body).toBe(400);
    }
    expect(await count('notification_silences')).toBe(before);
  });

  it('creates with date math, edits until to indefinitely, deletes; matches by id, canary, recursion, CEL and selector', async () => {
    const check: EventResource = { kind: 'check', id: checkId, name: 'api-check', health: 'unhealthy', permalink: '', env: { check: { name: 'api-check', labels: { team: 'payments' } }, canary: {} }, silenceKeys: { check_id: checkId, canary_id: canaryId } };
    const child: EventResource = { kind: 'component', id: childComp, name: 'child', health: null, permalink: '', env: { component: { name: 'child' } }, silenceKeys: { component_id: childComp } };
    expect(await findSilence(t.db, check)).toBeNull();

    const res = await api('POST', '/api/notification/silence', { name: 'by canary', canary_id: canaryId, from: 'now-1m', until: 'now+2h' });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().id;
    const row = (await t.db.query('SELECT "from", until, source, created_by FROM notification_silences WHERE id = $1', [id])).rows[0];
    expect(row.until.getTime() - Date.now()).toBeGreaterThan(119 * 60_000);
    expect(row.source).toBe('UI');
    expect(row.created_by).toBe(personId);
    expect(await findSilence(t.db, check)).toEqual({ id });
    expect(await findSilence(t.db, check, new Date(Date.now() + 3 * 3_600_000))).toBeNull();
    expect((await db('PATCH', `notification_silences?id=eq.${id}`, editor, { until: null })).statusCode).toBe(204);
    expect(await findSilence(t.db, check, new Date(Date.now() + 3 * 3_600_000))).toEqual({ id });
    expect((await db('PATCH', `notification_silences?id=eq.${id}`, editor, { deleted_at: 'now()' })).statusCode).toBe(204);
    expect(await findSilence(t.db, check)).toBeNull();

    const flat = (await api('POST', '/api/notification/silence', { name: 'parent only', component_id: parentComp })).json().id;
    expect(await findSilence(t.db, child)).toBeNull();
    await t.db.query('UPDATE notification_silences SET recursive = true WHERE id = $1', [flat]);
    expect(await findSilence(t.db, child)).toEqual({ id: flat });
    await t.db.query('UPDATE notification_silences SET deleted_at = now()');

    const cel = (await api('POST', '/api/notification/silence', { name: 'cel', filter: 'check.labels.team == "payments"' })).json().id;
    expect(await findSilence(t.db, check)).toEqual({ id: cel });
    await t.db.query('UPDATE notification_silences SET deleted_at = now()');
    const sel = (await api('POST', '/api/notification/silence', { name: 'sel', selectors: [{ types: ['http'], name: 'api-*' }] })).json().id;
    expect(await findSilence(t.db, check)).toEqual({ id: sel });
    await t.db.query(`UPDATE notification_silences SET selectors = '[{"types": ["tcp"]}]'`);
    expect(await findSilence(t.db, check)).toBeNull();
    await t.db.query('UPDATE notification_silences SET deleted_at = now()');
  });

  it('parses date math', () => {
    const now = new Date('2026-01-10T12:34:56Z');
    expect(parseTimeExpr('now+2h', now)?.toISOString()).toBe('2026-01-10T14:34:56.000Z');
    expect(parseTimeExpr('now-1d/d', now)?.toISOString()).toBe('2026-01-09T00:00:00.000Z');
    expect(parseTimeExpr('2026-02-01T00:00:00Z', now)?.toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(parseTimeExpr('now+2x', now)).toBeNull();
  });
});

describe('the reference UI calls', () => {
  it('answers notifications_summary, send history summary, its types and tags, silences with embeds, preview, summary, send_history/:id', async () => {
    const nid = (await t.db.query(`INSERT INTO notifications (name, events, person_id, created_by) VALUES ('ref', '{check.failed}', $1, $1) RETURNING id`, [personId])).rows[0].id;
    const sent = (await t.db.query(`INSERT INTO notification_send_history (notification_id, status, source_event, resource_id, body, duration_millis)
      VALUES ($1, 'sent', 'check.failed', $2, '# failed', 100) RETURNING id`, [nid, checkId])).rows[0].id;
    await t.db.query(`INSERT INTO notification_send_history (notification_id, status, source_event, resource_id, error, duration_millis)
      VALUES ($1, 'error', 'check.failed', $2, 'boom', 300), ($1, 'error', 'check.failed', $2, 'boom', 200)`, [nid, checkId]);
    const AVATAR = 'id,name,email,avatar';
    const rules = await db('GET', `notifications_summary?select=*,person:person_id(${AVATAR}),team:team_id(id,name,icon),created_by(${AVATAR})&order=created_at.desc&limit=50&offset=0`, viewer, undefined, { prefer: 'count=exact' });
    expect(rules.statusCode, rules.body).toBe(200);
    const r = rules.json().find((x: { id: string }) => x.id === nid);
    expect(r).toMatchObject({ sent: 1, failed: 2, avg_duration_ms: 200, most_common_error: 'boom', pending: 0 });
    expect(r.person.id).toBe(personId);
    expect(r.created_by.id).toBe(personId);

    const hist = await db('GET', 'notification_send_history_summary?select=*&order=created_at.desc&limit=10&offset=0&status.filter=sent&resource_type.filter=http', viewer, undefined, { prefer: 'count=exact' });
    expect(hist.statusCode, hist.body).toBe(200);
    expect(hist.json()).toHaveLength(1);
    expect(hist.json()[0]).toMatchObject({ id: sent, resource_kind: 'check', resource_type: 'http' });
    expect(hist.json()[0].resource.name).toBe('api-check');
    expect((await db('GET', 'notification_send_history_resource_types?select=resource_type', viewer)).json()).toEqual([{ resource_type: 'http' }]);
    expect((await db('GET', 'notification_send_history_resource_tags?select=key,value', viewer)).statusCode).toBe(200);

    const s = (await api('POST', '/api/notification/silence', { name: 'ui', check_id: checkId, until: 'now+1h' })).json().id;
    const sil = await db('GET', `notification_silences?select=*,checks:check_id(id,name,type,status),catalog:config_id(id,name,type,config_class),component:component_id(id,name,icon),createdBy:created_by(${AVATAR})&order=created_at.desc&limit=10&offset=0&deleted_at=is.null&`, viewer, undefined, { prefer: 'count=exact' });
    expect(sil.statusCode, sil.body).toBe(200);
    const srow = sil.json().find((x: { id: string }) => x.id === s);
    expect(srow.checks.name).toBe('api-check');
    expect(srow.createdBy.id).toBe(personId);

    const preview = await api('GET', `/api/notification/silence_preview?id=${canaryId}`, undefined, viewer);
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json().map((x: { id: string }) => x.id)).toEqual([sent]);
    const byFilter = await api('GET', `/api/notification/silence_preview?filter=${encodeURIComponent('check.name == "other"')}`, undefined, viewer);
    expect(byFilter.json()).toEqual([]);

    const summary = await api('POST', '/api/notification/summary', { pageIndex: 0, pageSize: 50, status: 'sent,error', resourceType: 'http' }, viewer);
    expect(summary.statusCode, summary.body).toBe(200);
    expect(summary.json().total).toBe(1);
    expect(summary.json().results[0]).toMatchObject({ total: 3, sent: 1, error: 2, resource_type: 'http' });
    expect((await api('POST', '/api/notification/summary', { pageSize: 51 }, viewer)).statusCode).toBe(400);

    const one = await api('GET', `/api/notification/send_history/${sent}`, undefined, viewer);
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toMatchObject({ id: sent, body_markdown: '# failed', resource_kind: 'check' });
  });
});
