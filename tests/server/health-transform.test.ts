import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadSchedulable } from '../../server/modules/health/queries.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// A check's `transform` through the public door: canaries saved with POST /api/canary, checks run with Run Now,
// effects read from the tables the dashboard reads (checks, check_statuses). MODE=agent: no scheduler of its own.
let t: TestContext;
let admin: Record<string, string>;
let dir: string;
let seq = 0;

beforeAll(async () => {
  t = await createTestApp({ MODE: 'agent' });
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  dir = mkdtempSync(join(tmpdir(), 'transform-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

async function createCanary(spec: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'POST', url: '/api/canary', headers: admin, payload: { name: `transform-${++seq}`, spec } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; checks: Array<{ id: string; name: string }> };
}

async function runNow(checkId: string) {
  const res = await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${checkId}`, headers: admin });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string; pass: boolean; invalid: boolean; message?: string; error?: string; detail?: unknown };
}

/** The canary's checks as the dashboard lists them, with each one's latest stored result. */
async function checksOf(canaryId: string) {
  const { rows } = await t.db.query(
    `SELECT ch.name, ch.type, ch.status, ch.labels, ch.transformed, ch.deleted_at IS NOT NULL AS deleted,
            s.status AS last_pass, s.message AS last_message, s.details AS last_details
     FROM checks ch
     LEFT JOIN LATERAL (SELECT status, message, details FROM check_statuses WHERE check_id = ch.id ORDER BY time DESC LIMIT 1) s ON true
     WHERE ch.canary_id = $1 ORDER BY ch.name`,
    [canaryId],
  );
  return rows as Array<{
    name: string; type: string; status: string | null; labels: Record<string, string> | null; transformed: boolean | null;
    deleted: boolean; last_pass: boolean | null; last_message: string | null; last_details: unknown;
  }>;
}

describe('transform expr', () => {
  it('one object without a name changes the check\'s own result: detail and message replaced', async () => {
    const c = await createCanary({
      exec: [{
        name: 'greeting', script: 'echo hello',
        transform: { expr: "{'detail': {'said': stdout.trim()}, 'message': 'it said ' + stdout.trim()}.toJSON()" },
      }],
    });
    const r = await runNow(c.checks[0].id);
    expect(r).toMatchObject({ pass: true, invalid: false, message: 'it said hello', detail: { said: 'hello' } });
    const rows = await checksOf(c.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: 'greeting', status: 'healthy', last_message: 'it said hello', last_details: { said: 'hello' } });
  });

  it('a list of named results makes checks under the canary; one missing later goes per transformDeleteStrategy', async () => {
    const file = join(dir, 'items');
    writeFileSync(file, 'alpha,beta');
    const c = await createCanary({
      exec: [{
        name: 'items', script: `cat ${file}`, transformDeleteStrategy: 'MarkUnhealthy',
        transform: {
          expr: "stdout.trim().split(',').map(n, {'name': n, 'pass': n != 'beta', 'message': 'item ' + n, 'labels': {'item': n}}).toJSON()",
        },
      }],
    });
    const r = await runNow(c.checks[0].id);
    expect(r).toMatchObject({ pass: true, invalid: false });
    expect(r.detail).toBeUndefined();
    expect(await checksOf(c.id)).toMatchObject([
      { name: 'alpha', type: 'exec', status: 'healthy', transformed: true, deleted: false, labels: { item: 'alpha' }, last_pass: true, last_message: 'item alpha' },
      { name: 'beta', type: 'exec', status: 'unhealthy', transformed: true, deleted: false, labels: { item: 'beta' }, last_pass: false, last_message: 'item beta' },
      { name: 'items', status: 'healthy', transformed: null, deleted: false },
    ]);
    // the scheduler runs the spec's checks only: a transformed check has nothing to run
    const scheduled = (await loadSchedulable(t.db)).find((x) => x.id === c.id)!;
    expect(scheduled.checks.map((x) => x.name)).toEqual(['items']);
    // Run Now on a transformed check runs the check whose transform made it
    const alphaId = (await t.db.query(`SELECT id FROM checks WHERE canary_id = $1 AND name = 'alpha'`, [c.id])).rows[0].id;
    expect(await runNow(alphaId)).toMatchObject({ id: c.checks[0].id, name: 'items', pass: true });
    // saving the canary again keeps them: they belong to a check that is still there
    const saved = await t.app.inject({ method: 'PATCH', url: `/api/canary/${c.id}`, headers: admin, payload: { labels: { team: 'a' } } });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await checksOf(c.id)).filter((x) => x.deleted)).toEqual([]);

    writeFileSync(file, 'alpha');
    await runNow(c.checks[0].id);
    const after = await checksOf(c.id);
    expect(after.find((x) => x.name === 'alpha')).toMatchObject({ deleted: false, last_pass: true });
    // MarkUnhealthy: a last unhealthy status, then removed
    expect(after.find((x) => x.name === 'beta')).toMatchObject({
      deleted: true, last_pass: false, last_message: 'no longer returned by the transform of items: marked unhealthy',
    });

    // a later run returning it again brings it back (the same row, its history attached)
    writeFileSync(file, 'alpha,beta');
    await runNow(c.checks[0].id);
    expect((await checksOf(c.id)).find((x) => x.name === 'beta')).toMatchObject({ deleted: false, last_message: 'item beta' });

    // the check leaving the spec takes its transformed checks along
    const put = await t.app.inject({
      method: 'PUT', url: `/api/canary/${c.id}`, headers: admin,
      payload: { name: `transform-${seq}`, spec: { exec: [{ name: 'other', script: 'true' }] } },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect((await checksOf(c.id)).filter((x) => !x.deleted).map((x) => x.name)).toEqual(['other']);
  });

  it('live views hear of transformed checks: a change event on checks naming them', async () => {
    const listener = new pg.Client({ connectionString: t.config.DATABASE_URL });
    await listener.connect();
    const events: Array<{ relation: string; ids?: string[] }> = [];
    listener.on('notification', (n) => events.push(JSON.parse(n.payload ?? '{}')));
    await listener.query('LISTEN console_events');
    try {
      const c = await createCanary({ exec: [{ name: 'live', script: 'true', transform: { expr: "[{'name': 'live-child', 'pass': true}]" } }] });
      await runNow(c.checks[0].id);
      const child = (await t.db.query(`SELECT id FROM checks WHERE canary_id = $1 AND name = 'live-child'`, [c.id])).rows[0].id;
      await vi.waitFor(() => expect(events.some((e) => e.relation === 'checks' && e.ids?.includes(child))).toBe(true));
    } finally {
      await listener.end();
    }
  });

  it('MarkHealthy and Ignore, per result or per check; deletedAt removes a check', async () => {
    const file = join(dir, 'strategies');
    writeFileSync(file, 'all');
    const c = await createCanary({
      exec: [{
        name: 'strategies', script: `cat ${file}`,
        transform: {
          expr: `stdout.trim() == 'all'
            ? [{'name': 'healthy-later', 'pass': false, 'transformDeleteStrategy': 'MarkHealthy'},
               {'name': 'ignored', 'pass': false},
               {'name': 'gone', 'pass': true, 'deletedAt': '2024-01-02T03:04:05Z'},
               {'name': 'kept', 'pass': true}]
            : [{'name': 'kept', 'pass': true}]`,
        },
      }],
    });
    await runNow(c.checks[0].id);
    const first = await checksOf(c.id);
    expect(first.find((x) => x.name === 'gone')).toMatchObject({ deleted: true, last_pass: true });
    expect(first.filter((x) => !x.deleted).map((x) => x.name)).toEqual(['healthy-later', 'ignored', 'kept', 'strategies']);
    const goneAt = await t.db.query(`SELECT deleted_at FROM checks WHERE canary_id = $1 AND name = 'gone'`, [c.id]);
    expect(goneAt.rows[0].deleted_at.toISOString()).toBe('2024-01-02T03:04:05.000Z');

    writeFileSync(file, 'one');
    await runNow(c.checks[0].id);
    const after = await checksOf(c.id);
    expect(after.find((x) => x.name === 'healthy-later')).toMatchObject({ deleted: true, last_pass: true, status: 'healthy' });
    // no strategy (or Ignore): removed as it was, no status added
    expect(after.find((x) => x.name === 'ignored')).toMatchObject({ deleted: true, last_pass: false, last_message: null });
    expect(after.filter((x) => !x.deleted).map((x) => x.name)).toEqual(['kept', 'strategies']);
  });

  it('a transform that fails at run time makes the result invalid with the reason and keeps earlier checks', async () => {
    const file = join(dir, 'flaky');
    writeFileSync(file, '[{"name": "one", "pass": true}]');
    const c = await createCanary({ exec: [{ name: 'flaky', script: `cat ${file}`, transform: { expr: 'stdout' } }] });
    await runNow(c.checks[0].id);
    writeFileSync(file, 'not json');
    const r = await runNow(c.checks[0].id);
    expect(r).toMatchObject({ pass: false, invalid: true });
    expect(r.error).toMatch(/^error transforming result: the transform returned text that is not JSON/);
    expect((await checksOf(c.id)).find((x) => x.name === 'one')).toMatchObject({ deleted: false });
  });
});

describe('transform on a webhook', () => {
  it('each push creates or updates checks; one missing from a push stays, deletedAt (endsAt) removes it', async () => {
    // fixtures/external/alertmanager.yaml of the reference
    const c = await createCanary({
      webhook: {
        name: 'alerts', token: { value: 'tok' },
        transform: {
          expr: `results.json.alerts.map(r, {
            'name': r.name + r.fingerprint, 'labels': r.labels, 'icon': 'alert', 'message': r.annotations.summary,
            'description': r.annotations.description, 'deletedAt': has(r.endsAt) ? r.endsAt : null,
          }).toJSON()`,
        },
      },
    });
    const push = async (alerts: unknown[]) => {
      const res = await t.app.inject({ method: 'POST', url: `/api/canary/webhook/${c.checks[0].id}?token=tok`, payload: { alerts } });
      expect(res.statusCode, res.body).toBe(200);
    };
    const alert = (fingerprint: string, extra: Record<string, unknown> = {}) => ({
      name: 'DiskFull', fingerprint, labels: { severity: 'critical' }, annotations: { summary: `disk ${fingerprint} full`, description: 'd' }, ...extra,
    });
    await push([alert('1'), alert('2')]);
    expect((await checksOf(c.id)).map((x) => [x.name, x.type, x.deleted, x.last_message])).toEqual([
      ['DiskFull1', 'webhook', false, 'disk 1 full'], ['DiskFull2', 'webhook', false, 'disk 2 full'], ['alerts', 'webhook', false, null],
    ]);
    await push([alert('2', { endsAt: '2024-05-01T00:00:00Z' })]);
    expect((await checksOf(c.id)).map((x) => [x.name, x.deleted])).toEqual([['DiskFull1', false], ['DiskFull2', true], ['alerts', false]]);
  });
});

describe('transform template', () => {
  it('renders JSON over the result fields', async () => {
    const c = await createCanary({
      exec: [{ name: 'templated', script: 'printf world', transform: { template: '{"message": "hello {{.stdout}}", "pass": false}' } }],
    });
    const r = await runNow(c.checks[0].id);
    expect(r).toMatchObject({ pass: false, invalid: false, message: 'hello world' });
    expect((await checksOf(c.id))[0]).toMatchObject({ status: 'unhealthy', last_message: 'hello world' });
  });
});

describe('transform javascript, in the sandbox', () => {
  it('works, with the result fields and _ as globals', async () => {
    const c = await createCanary({
      exec: [{
        name: 'js', script: 'printf "a b c"',
        transform: { javascript: "var out = _.map(stdout.split(' '), function (n) { return { name: 'js-' + n, pass: true, labels: { n: n } }; });\nJSON.stringify(out);" },
      }],
    });
    await runNow(c.checks[0].id);
    expect((await checksOf(c.id)).map((x) => [x.name, x.status, x.labels])).toEqual([
      ['js', 'healthy', null], ['js-a', 'healthy', { n: 'a' }], ['js-b', 'healthy', { n: 'b' }], ['js-c', 'healthy', { n: 'c' }],
    ]);
  });

  it('cannot reach process or require', async () => {
    const c = await createCanary({
      exec: [{
        name: 'escape', script: 'true',
        transform: { javascript: "JSON.stringify({message: [typeof process, typeof require, typeof globalThis.std, typeof fetch].join(',')})" },
      }],
    });
    expect(await runNow(c.checks[0].id)).toMatchObject({ pass: true, message: 'undefined,undefined,undefined,undefined' });
    const d = await createCanary({ exec: [{ name: 'escape-2', script: 'true', transform: { javascript: "require('fs').readFileSync('/etc/passwd', 'utf8')" } }] });
    const r = await runNow(d.checks[0].id);
    expect(r).toMatchObject({ pass: false, invalid: true });
    expect(r.error).toMatch(/^error transforming result: javascript: ReferenceError: .*require/);
  });

  it('an endless loop is stopped by the time limit, with a clear failed result', async () => {
    const c = await createCanary({ exec: [{ name: 'loop', script: 'true', transform: { javascript: 'while (true) {}' } }] });
    const r = await runNow(c.checks[0].id);
    expect(r).toMatchObject({ pass: false, invalid: true, error: 'error transforming result: javascript stopped after 1000 ms (time limit)' });
    // the sandbox serves the next script
    const d = await createCanary({ exec: [{ name: 'after-loop', script: 'true', transform: { javascript: "'{\"message\": \"still here\"}'" } }] });
    expect(await runNow(d.checks[0].id)).toMatchObject({ pass: true, message: 'still here' });
  });

  it('a memory bomb is stopped by the memory limit', async () => {
    const c = await createCanary({ exec: [{ name: 'bomb', script: 'true', transform: { javascript: "var s = 'x'.repeat(1 << 26); s.length" } }] });
    const r = await runNow(c.checks[0].id);
    expect(r).toMatchObject({ pass: false, invalid: true, error: 'error transforming result: javascript ran out of memory (limit 32 MiB)' });
  });
});

describe('transform at save', () => {
  it('a bad transform is refused by path, and changes nothing', async () => {
    const bad = [
      [{ exec: [{ name: 'e', script: 'true', transform: { expr: "{'a': }" } }] }, 'spec.exec.0.transform.expr'],
      [{ exec: [{ name: 'e', script: 'true', transform: { template: '{{ if .x }}' } }] }, 'spec.exec.0.transform.template'],
      [{ exec: [{ name: 'e', script: 'true', transform: { expr: '[]', javascript: '[]' } }] }, 'spec.exec.0.transform.javascript'],
      [{ exec: [{ name: 'e', script: 'true', transform: {} }] }, 'spec.exec.0.transform'],
      [{ exec: [{ name: 'e', script: 'true', transform: { expr: '[]' }, transformDeleteStrategy: 'Keep' }] }, 'spec.exec.0.transformDeleteStrategy'],
    ] as const;
    const before = (await t.db.query('SELECT count(*)::int AS n FROM canaries')).rows[0].n;
    for (const [spec, path] of bad) {
      const res = await t.app.inject({ method: 'POST', url: '/api/canary', headers: admin, payload: { name: 'refused', spec } });
      expect(res.statusCode, res.body).toBe(400);
      expect(Object.keys(res.json().details)).toEqual([path]);
    }
    expect((await t.db.query('SELECT count(*)::int AS n FROM canaries')).rows[0].n).toBe(before);
  });
});
