import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// Templates and scripts in checks, through the public door: canaries saved with POST /api/canary, run with Run Now
// (which stores each result, so the next run's last_result is the one before). A real PostgreSQL for templated
// queries, a real local HTTP server for templateBody and display/test javascript.
let t: TestContext;
let admin: Record<string, string>;
let dir: string;
let server: http.Server;
let base: string;
/** Bodies the local server received, newest last. */
const received: string[] = [];
let seq = 0;

beforeAll(async () => {
  t = await createTestApp({ MODE: 'agent' });
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  dir = mkdtempSync(join(tmpdir(), 'templates-'));
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Buffer.concat(chunks).toString());
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ rates: { EUR: 0.92, GBP: 0.79 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

async function save(spec: Record<string, unknown>, labels?: Record<string, string>) {
  const name = `templates-${++seq}`;
  const res = await t.app.inject({ method: 'POST', url: '/api/canary', headers: admin, payload: { name, spec, labels } });
  return { res, name };
}

async function createCanary(spec: Record<string, unknown>, labels?: Record<string, string>) {
  const { res, name } = await save(spec, labels);
  expect(res.statusCode, res.body).toBe(201);
  return { name, ...(res.json() as { id: string; checks: Array<{ id: string; name: string }> }) };
}

async function runNow(checkId: string) {
  const res = await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${checkId}`, headers: admin });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { pass: boolean; invalid: boolean; message?: string; error?: string; detail?: unknown };
}

function pgUrl(): string {
  return new URL(inject('adminUrl')).toString();
}

describe('last_result', () => {
  it('reaches display.expr, test.template and display.template: the previous stored result, or the zero one', async () => {
    const c = await createCanary({
      exec: [{
        name: 'counter', script: 'echo hi',
        test: { template: '{{ if last_result.status }}{{ eq last_result.message "was false" }}{{ else }}true{{ end }}' },
        display: { expr: "'was ' + string(last_result().status)" },
      }],
    });
    const first = await runNow(c.checks[0].id);
    expect(first).toMatchObject({ pass: true, message: 'was false' });
    const second = await runNow(c.checks[0].id);
    expect(second).toMatchObject({ pass: true, message: 'was true' });
    // the previous message is now "was true": the test template sees it and fails
    const third = await runNow(c.checks[0].id);
    expect(third).toMatchObject({ pass: false, invalid: false });
  });

  it('results are the previous run\'s stored detail; createdAt is a timestamp in CEL', async () => {
    const c = await createCanary({
      exec: [{
        name: 'detail', script: 'echo 7',
        transform: { expr: "{'detail': {'n': stdout.trim(), 'prev': last_result().results.?n.orValue('none')}}.toJSON()" },
        display: { expr: "last_result().results.?n.orValue('none') + ' at ' + (last_result().createdAt > timestamp('2000-01-01T00:00:00Z') ? 'a time' : 'zero')" },
      }],
    });
    expect((await runNow(c.checks[0].id)).message).toBe('none at zero');
    const second = await runNow(c.checks[0].id);
    expect(second.message).toBe('7 at a time');
    expect(second.detail).toEqual({ n: '7', prev: '7' });
  });
});

describe('last_result on a pushed result', () => {
  it('a webhook push reads the previous pushed result', async () => {
    const c = await createCanary({
      webhook: [{ name: 'hook', token: 'tok', display: { expr: "json.v + ' after ' + last_result().message" } }],
    });
    const push = async (v: string) => {
      const res = await t.app.inject({ method: 'POST', url: `/api/canary/webhook/${c.checks[0].id}?token=tok`, payload: { v } });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { message: string }).message;
    };
    expect(await push('1')).toBe('1 after ');
    expect(await push('2')).toBe('2 after 1 after ');
  });
});

describe('last_result with dependsOn', () => {
  it('a dependency run first by Run Now reads its own last_result, not the one of the check asked for', async () => {
    const c = await createCanary({
      exec: [
        { name: 'first', script: 'echo a', display: { expr: "'after ' + last_result().message" } },
        { name: 'second', script: 'echo b', dependsOn: ['first'], display: { expr: "outputs.first.message + ' / ' + last_result().message" } },
      ],
    });
    const id = Object.fromEntries(c.checks.map((ch) => [ch.name, ch.id]));
    expect((await runNow(id.first)).message).toBe('after ');
    expect((await runNow(id.second)).message).toBe('after after  / ');
    expect((await runNow(id.second)).message).toBe('after after  / after after  / ');
  });
});

describe('folder filter.since rendered before the run', () => {
  it('the reference fixture: since is the last known max, so only newer files count', async () => {
    const folder = join(dir, 'since');
    mkdirSync(folder);
    const old = join(folder, 'old.txt');
    writeFileSync(old, 'a');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(old, hourAgo, hourAgo);
    const c = await createCanary({
      folder: [{
        name: 'updated files', path: folder,
        filter: {
          since: '{{-  if last_result.results.max }}\n{{  last_result.results.max }}\n{{- else}}\nnow-60d\n{{- end}}',
        },
        transform: {
          expr: '{"detail": {"max": string(results.?newest.modified.orValue(last_result().results.?max.orValue("now-60d")))}}.toJSON()',
        },
        display: { expr: 'results.?files.orValue([]).map(i, i.name).join(", ")' },
        test: { expr: 'results.?files.orValue([]).size() > 0' },
      }],
    });
    const first = await runNow(c.checks[0].id);
    expect(first).toMatchObject({ pass: true, invalid: false, message: 'old.txt' });
    // nothing newer than the max of the first run
    const second = await runNow(c.checks[0].id);
    expect(second).toMatchObject({ pass: false, invalid: false });
    const fresh = join(folder, 'new.txt');
    writeFileSync(fresh, 'b');
    const later = new Date(Date.now() + 3_600_000);
    utimesSync(fresh, later, later);
    const third = await runNow(c.checks[0].id);
    expect(third).toMatchObject({ pass: true, message: 'new.txt' });
  });

  it('a since template that fails to render makes the result invalid with the reason', async () => {
    const c = await createCanary({ folder: [{ name: 'bad since', path: dir, filter: { since: '{{ .canary.name.nope }}' } }] });
    const r = await runNow(c.checks[0].id);
    expect(r.invalid).toBe(true);
    expect(r.error).toMatch(/^filter\.since: .*can't evaluate field nope/);
  });
});

describe('postgres query rendered before the run', () => {
  it('sees canary, check and last_result', async () => {
    const c = await createCanary({
      postgres: [{
        name: 'templated', url: pgUrl(),
        query: "SELECT '{{ .canary.name }}/{{ .check.name }}' AS who, '{{ last_result.status }}' AS last",
        display: { expr: "results.rows[0].who + ' ' + results.rows[0].last" },
      }],
    });
    expect((await runNow(c.checks[0].id)).message).toBe(`${c.name}/templated false`);
    expect((await runNow(c.checks[0].id)).message).toBe(`${c.name}/templated true`);
  });

  it('a query template that fails to render is an invalid result; one that does not parse is refused at save', async () => {
    const c = await createCanary({ postgres: [{ name: 'bad', url: pgUrl(), query: 'SELECT {{ index .canary.labels 3 }}' }] });
    const r = await runNow(c.checks[0].id);
    expect(r.invalid).toBe(true);
    expect(r.error).toMatch(/^query: .*index/);
    const { res } = await save({ postgres: [{ name: 'bad', url: pgUrl(), query: 'SELECT {{ nosuchfunc }}' }] });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('nosuchfunc');
  });
});

describe('http templateBody', () => {
  it('renders over canary, check and env entries with gomplate functions (`{{. | toJSONPretty " "}}`)', async () => {
    const c = await createCanary({
      http: [{
        name: 'body', url: `${base}/post`, method: 'POST', templateBody: true, body: '{{. | toJSONPretty " " }}',
        env: [{ name: 'user', value: 'hello' }, { name: 'pass', value: 'world' }],
      }],
    }, { team: 'a' });
    const r = await runNow(c.checks[0].id);
    expect(r).toMatchObject({ pass: true, invalid: false });
    const sent = JSON.parse(received.at(-1)!);
    expect(sent).toMatchObject({
      user: 'hello', pass: 'world',
      canary: { name: c.name, namespace: 'default', labels: { team: 'a' }, id: c.id },
      check: { name: 'body', id: c.checks[0].id, endpoint: `${base}/post` },
    });
  });

  it('a field nobody gave prints <no value>, as Go does (fixture http-templateBody.yaml); last_result is there', async () => {
    const c = await createCanary({
      http: [{
        name: 'meta', url: `${base}/post`, method: 'POST', templateBody: true,
        body: '{"name": "{{.metadata.name}}", "canary": "{{.canary.name}}", "last": "{{ last_result.status }}"}',
      }],
    });
    await runNow(c.checks[0].id);
    expect(JSON.parse(received.at(-1)!)).toEqual({ name: '<no value>', canary: c.name, last: 'false' });
    await runNow(c.checks[0].id);
    expect(JSON.parse(received.at(-1)!).last).toBe('true');
  });
});

describe('display.javascript and test.javascript', () => {
  const url = () => `${base}/latest`;

  it('display.javascript sets the message over the same variables CEL sees (fixture display-with-javascript)', async () => {
    const c = await createCanary({
      http: [{
        name: 'USD', url: url(),
        display: {
          javascript: [
            'currencyCodes = { "EUR": "€", "GBP": "£" }',
            'display = []',
            'for (var currency in json.rates) { display.push(currency + " = " + currencyCodes[currency] + json.rates[currency]) }',
            '"$1 = " + display.join(", ") + " (" + code + ", " + check.name + ")"',
          ].join('\n'),
        },
      }],
    });
    const r = await runNow(c.checks[0].id);
    expect(r).toMatchObject({ pass: true, invalid: false, message: '$1 = EUR = €0.92, GBP = £0.79 (200, USD)' });
  });

  it('test.javascript must give true; false fails the check, anything else is not a boolean', async () => {
    const c = await createCanary({
      http: [
        { name: 'cheap', url: url(), test: { javascript: 'json.rates.EUR < 1' } },
        { name: 'dear', url: url(), test: { javascript: 'json.rates.EUR > 1' } },
        { name: 'text', url: url(), test: { javascript: '"maybe"' } },
      ],
    });
    const byName = Object.fromEntries(c.checks.map((ch) => [ch.name, ch.id]));
    expect(await runNow(byName.cheap)).toMatchObject({ pass: true });
    expect(await runNow(byName.dear)).toMatchObject({ pass: false, invalid: false, error: 'test failed: json.rates.EUR > 1' });
    expect(await runNow(byName.text)).toMatchObject({ pass: false, error: 'test expression did not return a boolean value' });
  });

  it('a script that throws or never ends makes the result invalid with the reason (sandbox limits)', async () => {
    const c = await createCanary({
      http: [
        { name: 'throws', url: url(), display: { javascript: 'nosuch.thing' } },
        { name: 'spins', url: url(), test: { javascript: 'while (true) {}' } },
      ],
    });
    const byName = Object.fromEntries(c.checks.map((ch) => [ch.name, ch.id]));
    const thrown = await runNow(byName.throws);
    expect(thrown).toMatchObject({ pass: false, invalid: true });
    expect(thrown.error).toMatch(/^display javascript: javascript: ReferenceError/);
    const spun = await runNow(byName.spins);
    expect(spun).toMatchObject({ pass: false, invalid: true });
    expect(spun.error).toMatch(/time limit/);
  });

  it('jsonPath stays refused at save', async () => {
    const { res } = await save({ http: [{ name: 'jp', url: url(), display: { jsonPath: '$.rates' } }] });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('display.jsonPath is not supported');
  });
});
