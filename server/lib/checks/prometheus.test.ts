import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
import { sendHugeJson, startHttpServer, type HttpServer } from '../../../tests/fixtures/servers/http.js';
import { scalar, startFakePrometheus, vector } from '../../../tests/fixtures/servers/prometheus.js';
import { closedPort, startHangingServer } from '../../../tests/fixtures/servers/tcp.js';
import { prometheusCheck } from './prometheus.js';

const run = (spec: Parameters<typeof prometheusCheck.run>[0], timeoutMs?: number) =>
  prometheusCheck.run(prometheusCheck.schema.parse(spec), checkContext(timeoutMs));

const answers = {
  up: vector([{ __name__: 'up', job: 'api', instance: 'a:9090' }, 1], [{ __name__: 'up', job: 'db', instance: 'b:9090' }, 0]),
  'sum(rate(errors_total[5m]))': vector([{}, '0.25']),
  'scalar(1)': scalar(1),
  'vector(NaN)': vector([{}, 'NaN']),
};

describe('prometheus check against a fake Prometheus HTTP API', () => {
  let prom: HttpServer;
  let secured: HttpServer;
  let getOnly: HttpServer;
  beforeAll(async () => {
    prom = await startFakePrometheus(answers);
    secured = await startFakePrometheus(answers, { auth: { user: 'reader', password: 'prom-Secret' }, prefix: '/prometheus' });
    getOnly = await startFakePrometheus(answers, { methods: ['GET'] });
  });
  afterAll(async () => {
    await Promise.all([prom?.close(), secured?.close(), getOnly?.close()]);
  });

  it('exposes every series with its labels and value; value/firstResult come from the first', async () => {
    const r = await run({ url: prom.url, query: 'up' });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ pass: true, message: '2 results, value 1' });
    expect(r.data).toMatchObject({
      resultType: 'vector',
      value: 1,
      firstResult: { job: 'api', value: 1 },
      results: [
        { __name__: 'up', job: 'api', instance: 'a:9090', value: 1 },
        { __name__: 'up', job: 'db', instance: 'b:9090', value: 0 },
      ],
    });
    const sent = prom.requests.at(-1)!;
    expect(sent.method).toBe('POST');
    expect(new URLSearchParams(sent.body).get('query')).toBe('up');
  });

  it('parses string sample values into numbers, scalars included', async () => {
    expect((await run({ url: prom.url, query: 'sum(rate(errors_total[5m]))' })).data.value).toBe(0.25);
    expect((await run({ url: prom.url, query: 'scalar(1)' })).data).toMatchObject({ resultType: 'scalar', value: 1 });
    expect((await run({ url: prom.url, query: 'vector(NaN)' })).data.value).toBeNaN();
  });

  it('passes on an empty result unless markFailOnEmpty is set', async () => {
    const empty = await run({ url: prom.url, query: 'absent_metric' });
    expect(empty).toMatchObject({ pass: true, data: { value: 0, firstResult: {}, results: [] } });
    const strict = await run({ url: prom.url, query: 'absent_metric', markFailOnEmpty: true });
    expect(strict).toMatchObject({ pass: false, error: 'query returned no results' });
  });

  it('fails with the server error of a bad query', async () => {
    const r = await run({ url: prom.url, query: 'sum(up' });
    expect(r.pass).toBe(false);
    expect(r.invalid).toBeFalsy();
    expect(r.error).toMatch(/^bad_data: .*parse error/);
  });

  it('sends Basic credentials from the url or fields, keeps the path prefix, and never shows the password', async () => {
    const withUrlCreds = await run({ url: `http://reader:prom-Secret@127.0.0.1:${secured.port}/prometheus/`, query: 'up' });
    expect(withUrlCreds.pass).toBe(true);
    expect(JSON.stringify(withUrlCreds)).not.toContain('prom-Secret');
    const withFields = await run({ url: `${secured.url}/prometheus`, username: 'reader', password: { value: 'prom-Secret' }, query: 'up' });
    expect(withFields.pass).toBe(true);
    const denied = await run({ url: `${secured.url}/prometheus`, username: 'reader', password: 'nope-Wrong', query: 'up' });
    expect(denied.pass).toBe(false);
    expect(denied.error).toMatch(/HTTP 401/);
    expect(JSON.stringify(denied)).not.toContain('nope-Wrong');
  });

  it('falls back to GET when the server refuses POST (405)', async () => {
    const r = await run({ host: getOnly.url, query: 'up' });
    expect(r.pass).toBe(true);
    expect(getOnly.requests.map((q) => q.method)).toEqual(['POST', 'GET']);
  });
});

describe('prometheus check target failures and bad specs', () => {
  it('fails when nothing listens', async () => {
    const r = await run({ url: `http://127.0.0.1:${await closedPort()}`, query: 'up' });
    expect(r.pass).toBe(false);
    expect(r.invalid).toBeFalsy();
    expect(r.error).toMatch(/ECONNREFUSED/);
  });

  it('gives up on a server that never answers', async () => {
    const hang = await startHangingServer();
    try {
      const t0 = Date.now();
      const r = await run({ url: hang.url, query: 'up' }, 500);
      expect(r).toMatchObject({ pass: false, error: 'timed out after 500 ms' });
      expect(Date.now() - t0).toBeLessThan(10_000);
    } finally {
      await hang.close();
    }
  });

  it('stops reading a response larger than the limit', async () => {
    const huge = await startHttpServer((_req, res) => sendHugeJson(res, 64 * 1024 * 1024));
    try {
      const r = await run({ url: huge.url, query: 'up' });
      expect(r.pass).toBe(false);
      expect(r.error).toMatch(/response too large/);
    } finally {
      await huge.close();
    }
  });

  it('fails on a non-JSON answer (not Prometheus)', async () => {
    const html = await startHttpServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>'));
    try {
      const r = await run({ url: html.url, query: 'up' });
      expect(r).toMatchObject({ pass: false });
      expect(r.error).toMatch(/not JSON/);
    } finally {
      await html.close();
    }
  });

  it.each([[{ query: 'up' }], [{ url: 'ftp://h', query: 'up' }], [{ url: 'not a url', query: 'up' }], [{ url: 'http://h' }]])(
    'reports %j as invalid',
    async (spec) => {
      expect(await run(spec)).toMatchObject({ pass: false, invalid: true });
    },
  );
});
