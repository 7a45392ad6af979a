import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HealthScheduler } from '../../server/modules/health/scheduler.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';
import { until } from '../support/poll.js';

// dependsOn between the checks of a canary, as the reference's fixture minimal/http_depends_on_pass.yaml: one check
// gets a uuid from a local server, the check that depends on it sends it back (in its url) and reads it in CEL.
// MODE=agent keeps the app's own scheduler off; a test that needs one starts its own.
let t: TestContext;
let admin: Record<string, string>;
let base: string;
let server: http.Server;
let scheduler: HealthScheduler | undefined;
let seq = 0;
/** What the local server was asked, in order: `uuid <id>` (answered with that id), `echo <id>`, `body <text>`, `fail`. */
const seen: string[] = [];

const quiet = { info() {}, warn() {}, error() {}, debug() {} };
beforeAll(async () => {
  t = await createTestApp({ MODE: 'agent' });
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    res.setHeader('content-type', 'application/json');
    if (url === '/uuid') {
      const uuid = randomUUID();
      // answered a little later, so a check that did not wait for this one would have run before it
      setTimeout(() => {
        seen.push(`uuid ${uuid}`);
        res.end(JSON.stringify({ uuid }));
      }, 150);
    } else if (req.method === 'POST') {
      let body = '';
      req.on('data', (chunk) => { body += chunk; });
      req.on('end', () => {
        seen.push(`body ${body}`);
        res.end(body);
      });
    } else if (url.startsWith('/echo/')) {
      const id = decodeURIComponent(url.slice('/echo/'.length));
      seen.push(`echo ${id}`);
      res.end(JSON.stringify({ id }));
    } else {
      seen.push('fail');
      res.statusCode = 500;
      res.end('{}');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await scheduler?.stop();
  scheduler = undefined;
  await t.db.query('UPDATE canaries SET deleted_at = now() WHERE deleted_at IS NULL');
  seen.length = 0;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await t.close();
});

const post = (spec: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/canary', headers: admin, payload: { name: `depends-on-${++seq}`, spec } });

async function createCanary(spec: Record<string, unknown>) {
  const res = await post(spec);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; checks: Array<{ id: string; name: string }> };
}

const idOf = (c: { checks: Array<{ id: string; name: string }> }, name: string) => c.checks.find((ch) => ch.name === name)!.id;

const resultsOf = async (checkId: string) => (await t.db.query(
  'SELECT status, invalid, message, error FROM check_statuses WHERE check_id = $1 ORDER BY time', [checkId],
)).rows as Array<{ status: boolean; invalid: boolean; message: string | null; error: string | null }>;

function startScheduler() {
  scheduler = new HealthScheduler(t.db, { log: quiet, tickMs: 50, reloadMs: 200, retentionEveryMs: 0, summaryCache: false });
  return scheduler.start();
}

/** The fixture's two checks, on the local server; `useUuid` sends the uuid it was given and shows it. */
const fixture = () => ({
  schedule: '@every 1h',
  http: [
    { name: 'getUuid', url: `${base}/uuid`, test: { expr: "code == 200 && json.uuid != ''" } },
    {
      name: 'useUuid', url: `${base}/echo/$(outputs.getUuid.json.uuid)`, dependsOn: ['getUuid'],
      test: { expr: "code == 200 && outputs.getUuid.json.uuid != '' && json.id == outputs.getUuid.json.uuid" },
      display: { template: 'sent {{ .outputs.getUuid.json.uuid }}' },
    },
  ],
});

describe('dependsOn at save', () => {
  it('refuses, by path, a name that is no check of the canary and a cycle', async () => {
    const unknown = await post({ http: [{ name: 'a', url: `${base}/echo/a` }, { name: 'b', url: `${base}/echo/b`, dependsOn: ['a', 'nope'] }] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details).toEqual({ 'spec.http.1.dependsOn.1': expect.stringContaining('no check of this canary is named "nope"') });
    const cycle = await post({
      http: [{ name: 'a', url: `${base}/echo/a`, dependsOn: ['b'] }],
      tcp: [{ name: 'b', endpoint: '127.0.0.1:1', dependsOn: ['a'] }],
    });
    expect(cycle.statusCode).toBe(400);
    expect(cycle.json().details).toEqual({ 'spec.http.0.dependsOn': expect.stringContaining('dependsOn makes a cycle: a → b → a') });
    const notAList = await post({ http: [{ name: 'a', url: `${base}/echo/a`, dependsOn: 'b' }] });
    expect(Object.keys(notAList.json().details)).toEqual(['spec.http.0.dependsOn']);
  });
});

describe('dependsOn at run', () => {
  it('runs a check after the one it depends on, with its output in the url, CEL and display', async () => {
    const c = await createCanary(fixture());
    await startScheduler();
    await until(async () => (await resultsOf(idOf(c, 'useUuid'))).length > 0, 'useUuid has a result');
    const [given] = seen.filter((s) => s.startsWith('uuid ')).map((s) => s.slice(5));
    // the uuid served to getUuid is the one useUuid sent, after it was served
    expect(seen).toEqual([`uuid ${given}`, `echo ${given}`]);
    expect(await resultsOf(idOf(c, 'useUuid'))).toEqual([{ status: true, invalid: false, message: `sent ${given}`, error: null }]);
    expect((await resultsOf(idOf(c, 'getUuid')))[0].status).toBe(true);
  });

  it('gives the output to a transform, as the reference does', async () => {
    const c = await createCanary({
      schedule: '@every 1h',
      http: [
        { name: 'getUuid', url: `${base}/uuid` },
        {
          name: 'named', url: `${base}/echo/x`, dependsOn: ['getUuid'],
          transform: { expr: "{'message': 'after ' + outputs.getUuid.json.uuid}.toJSON()" },
        },
      ],
    });
    await startScheduler();
    await until(async () => (await resultsOf(idOf(c, 'named'))).length > 0, 'named has a result');
    const [given] = seen.filter((s) => s.startsWith('uuid ')).map((s) => s.slice(5));
    expect((await resultsOf(idOf(c, 'named')))[0]).toMatchObject({ status: true, message: `after ${given}` });
  });

  it('gives the output to a templated body (templateBody: true), with template functions', async () => {
    const c = await createCanary({
      schedule: '@every 1h',
      http: [
        { name: 'getUuid', url: `${base}/uuid` },
        {
          name: 'postUuid', url: `${base}/post`, method: 'POST', templateBody: true, dependsOn: ['getUuid'],
          body: '{"id": "{{ .outputs.getUuid.json.uuid | strings.ToUpper }}", "code": {{ .outputs.getUuid.code }}}',
        },
      ],
    });
    await startScheduler();
    await until(async () => (await resultsOf(idOf(c, 'postUuid'))).length > 0, 'postUuid has a result');
    const [given] = seen.filter((s) => s.startsWith('uuid ')).map((s) => s.slice(5));
    expect(seen).toEqual([`uuid ${given}`, `body {"id": "${given.toUpperCase()}", "code": 200}`]);
    expect((await resultsOf(idOf(c, 'postUuid')))[0].status).toBe(true);
  });

  it('runs a dependent whatever its dependency returned (as the reference), without that output', async () => {
    const c = await createCanary({
      schedule: '@every 1h',
      http: [
        { name: 'broken', url: `${base}/fail` },
        { name: 'after', url: `${base}/echo/static`, dependsOn: ['broken'], test: { expr: 'code == 200' } },
        { name: 'needs', url: `${base}/echo/$(outputs.broken.json.uuid)`, dependsOn: ['broken'] },
        { name: 'reads', url: `${base}/echo/static`, dependsOn: ['broken'], test: { expr: 'outputs.broken.pass' } },
      ],
    });
    await startScheduler();
    await until(async () => {
      const counts = await Promise.all(['after', 'needs', 'reads'].map(async (n) => (await resultsOf(idOf(c, n))).length));
      return counts.every((n) => n > 0);
    }, 'every dependent has a result');
    expect(seen.indexOf('fail')).toBe(0);
    expect((await resultsOf(idOf(c, 'broken')))[0].status).toBe(false);
    expect((await resultsOf(idOf(c, 'after')))[0]).toMatchObject({ status: true, error: null });
    const needs = (await resultsOf(idOf(c, 'needs')))[0];
    expect(needs).toMatchObject({ status: false, invalid: true });
    expect(needs.error).toContain('check "broken" has no output in this run');
    // no dependency passed: `outputs` is not defined at all, as in the reference
    expect((await resultsOf(idOf(c, 'reads')))[0]).toMatchObject({ status: false, invalid: true, error: expect.stringMatching(/^test expression: /) });
  });

  it('Run Now of a dependent runs its dependencies first and stores only its own result', async () => {
    const c = await createCanary(fixture());
    const res = await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${idOf(c, 'useUuid')}`, headers: admin });
    expect(res.statusCode, res.body).toBe(200);
    const [given] = seen.filter((s) => s.startsWith('uuid ')).map((s) => s.slice(5));
    expect(seen).toEqual([`uuid ${given}`, `echo ${given}`]);
    expect(res.json()).toMatchObject({ pass: true, message: `sent ${given}` });
    expect(await resultsOf(idOf(c, 'getUuid'))).toEqual([]);
  });
});
