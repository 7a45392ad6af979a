import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.js';
import { SummaryResponse } from '../../server/contracts/health.js';
import { FleetSummaryCache } from '../../server/modules/health/fleet-summary.js';
import { recordResult } from '../../server/modules/health/queries.js';
import { acceptsGzip } from '../../server/modules/health/routes.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

describe('FleetSummaryCache', () => {
  function setup(opts = {}) {
    let clock = 1_000_000;
    let n = 0;
    const held: Array<() => void> = [];
    let hold = false;
    const build = vi.fn(async (key: string) => {
      const mine = ++n;
      if (hold) await new Promise<void>((r) => held.push(r));
      return JSON.stringify({ key, build: mine });
    });
    const cache = new FleetSummaryCache(build, { refreshMs: 3_000, maxAgeMs: 60_000, maxEntries: 2, now: () => clock, ...opts });
    const read = async (key = '1h|') => JSON.parse((await cache.get(key)).json.toString()).build as number;
    return {
      cache, build, read,
      tick: (ms: number) => (clock += ms),
      holdBuilds: () => (hold = true),
      /** Lets every held build finish. */
      releaseBuilds: () => {
        hold = false;
        for (const r of held.splice(0)) r();
      },
    };
  }

  it('builds once for concurrent requests and serves the ready bytes after', async () => {
    const s = setup();
    s.holdBuilds();
    const all = Promise.all([s.cache.get('1h|'), s.cache.get('1h|'), s.cache.get('1h|')]);
    await Promise.resolve();
    s.releaseBuilds();
    const [a, b, c] = await all;
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(s.build).toHaveBeenCalledTimes(1);
    expect(await s.read()).toBe(1);
    s.tick(59_000);
    expect(await s.read()).toBe(1);
    expect(s.build).toHaveBeenCalledTimes(1);
  });

  it('keeps a gzip copy of exactly the same bytes', async () => {
    const s = setup();
    const e = await s.cache.get('1d|name');
    expect(gunzipSync(e.gzip).equals(e.json)).toBe(true);
  });

  it('after new results, rebuilds once the answer is refreshMs old, not before, serving it meanwhile', async () => {
    const s = setup();
    expect(await s.read()).toBe(1);
    s.tick(1_000);
    s.cache.changed();
    expect(await s.read()).toBe(1);
    expect(s.build).toHaveBeenCalledTimes(1);
    s.tick(2_000);
    // 3 s old: a rebuild starts, and this request still gets the current answer
    expect(await s.read()).toBe(1);
    expect(s.build).toHaveBeenCalledTimes(2);
    await s.cache.settled();
    expect(await s.read()).toBe(2);
    // nothing changed since: the new answer stays
    s.tick(10_000);
    expect(await s.read()).toBe(2);
    expect(s.build).toHaveBeenCalledTimes(2);
  });

  it('spaces rebuilds after changes by 10 x the last build time when that is longer than refreshMs', async () => {
    let clock = 0;
    let n = 0;
    const cache = new FleetSummaryCache(async () => {
      clock += 800; // a build of 0.8 s: rebuilds at most every 8 s
      return String(++n);
    }, { now: () => clock });
    const read = async () => Number((await cache.get('1h|')).json.toString());
    expect(await read()).toBe(1);
    cache.changed();
    clock += 5_000;
    expect(await read()).toBe(1);
    await cache.settled();
    expect(n).toBe(1);
    clock += 2_500; // 8.3 s after the build started
    expect(await read()).toBe(1);
    await cache.settled();
    expect(await read()).toBe(2);
  });

  it('waits for the rebuild when the changed answer is over 2 x refreshMs old', async () => {
    const s = setup();
    expect(await s.read()).toBe(1);
    s.tick(10_000);
    s.cache.changed();
    expect(await s.read()).toBe(2);
  });

  it('after a canary or check change, never serves an answer built before it', async () => {
    const s = setup();
    expect(await s.read()).toBe(1);
    s.cache.invalidate();
    expect(await s.read()).toBe(2);
    // a build in flight when the change happened does not count either
    s.holdBuilds();
    s.cache.invalidate();
    const before = s.read();
    await Promise.resolve();
    s.cache.invalidate();
    const after = s.read();
    s.releaseBuilds();
    expect(await before).toBe(3);
    expect(await after).toBe(4);
    expect(await s.read()).toBe(4);
  });

  it('rebuilds past maxAgeMs even when no change was seen', async () => {
    const s = setup();
    expect(await s.read()).toBe(1);
    s.tick(59_999);
    expect(await s.read()).toBe(1);
    expect(s.build).toHaveBeenCalledTimes(1);
    s.tick(1);
    expect(await s.read()).toBe(1);
    expect(s.build).toHaveBeenCalledTimes(2);
    await s.cache.settled();
    expect(await s.read()).toBe(2);
  });

  it('keeps at most maxEntries answers, dropping the least recently used', async () => {
    const s = setup();
    await s.cache.get('1h|');
    await s.cache.get('1d|');
    await s.cache.get('1h|');
    await s.cache.get('7d|');
    expect(s.build).toHaveBeenCalledTimes(3);
    await s.cache.get('1h|');
    expect(s.build).toHaveBeenCalledTimes(3);
    await s.cache.get('1d|');
    expect(s.build).toHaveBeenCalledTimes(4);
  });

  it('a failed build is not kept: the next request builds again', async () => {
    let fail = true;
    const cache = new FleetSummaryCache(async () => {
      if (fail) throw new Error('database down');
      return '{"ok":true}';
    });
    await expect(cache.get('1h|')).rejects.toThrow('database down');
    fail = false;
    expect((await cache.get('1h|')).json.toString()).toBe('{"ok":true}');
  });
});

describe('acceptsGzip', () => {
  it('reads Accept-Encoding with q values', () => {
    expect(acceptsGzip('gzip, deflate, br')).toBe(true);
    expect(acceptsGzip('br;q=1.0, gzip;q=0.8')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});

describe('the whole-fleet summary over HTTP', () => {
  // MODE=agent: no scheduler, so only what a test does changes results
  let t: TestContext;
  let other: FastifyInstance;
  let admin: Record<string, string>;
  let viewer: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp({ MODE: 'agent' });
    // a second replica on the same database
    other = await buildApp(t.config, { logger: false });
    await other.ready();
    admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
    viewer = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['viewer'] })).id);
  });
  afterAll(async () => {
    await other.close();
    await t.close();
  });

  const names = async (app: FastifyInstance = t.app, query = '') => {
    const res = await app.inject({ method: 'GET', url: `/api/canary/api/summary${query}`, headers: viewer });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { checks_summary: Array<{ name: string }> }).checks_summary.map((c) => c.name).sort();
  };
  const create = async (name: string, app: FastifyInstance = t.app) => {
    const res = await app.inject({
      method: 'POST', url: '/api/canary', headers: admin,
      payload: { name, spec: { tcp: [{ name: `${name}-port`, endpoint: '127.0.0.1:1', timeout: '2s' }] } },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; checks: Array<{ id: string }> };
  };

  it('lists a new check at once and drops a deleted one at once', async () => {
    const a = await create('fleet-a');
    expect(await names()).toEqual(['fleet-a-port']);
    const b = await create('fleet-b');
    expect(await names()).toEqual(['fleet-a-port', 'fleet-b-port']);
    expect(await names(t.app, '?sortBy=-name')).toEqual(['fleet-a-port', 'fleet-b-port']);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/canary/${a.id}`, headers: admin });
    expect(del.statusCode).toBe(200);
    expect(await names()).toEqual(['fleet-b-port']);
    expect(await names(t.app, '?sortBy=-name')).toEqual(['fleet-b-port']);
    // a renamed check (update) too
    const put = await t.app.inject({
      method: 'PUT', url: `/api/canary/${b.id}`, headers: admin,
      payload: { name: 'fleet-b', spec: { tcp: [{ name: 'fleet-b-renamed', endpoint: '127.0.0.1:1' }] } },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(await names()).toEqual(['fleet-b-renamed']);
  });

  it('shows a Run Now result at once', async () => {
    const c = await create('fleet-run');
    const before = (await t.app.inject({ method: 'GET', url: '/api/canary/api/summary', headers: viewer })).json();
    expect(before.checks_summary.find((x: { id: string }) => x.id === c.checks[0].id).uptime).toMatchObject({ passed: 0, failed: 0 });
    const run = await t.app.inject({ method: 'POST', url: `/api/canary/run/check/${c.checks[0].id}`, headers: admin });
    expect(run.statusCode, run.body).toBe(200);
    const after = (await t.app.inject({ method: 'GET', url: '/api/canary/api/summary', headers: viewer })).json();
    expect(after.checks_summary.find((x: { id: string }) => x.id === c.checks[0].id)).toMatchObject({
      status: 'unhealthy', uptime: { passed: 0, failed: 1 },
    });
  });

  it('sends the ready gzip copy to clients that take gzip, the same JSON otherwise', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/api/canary/api/summary', headers: viewer });
    const zipped = await t.app.inject({ method: 'GET', url: '/api/canary/api/summary', headers: { ...viewer, 'accept-encoding': 'gzip, br' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['content-type']).toMatch(/^application\/json/);
    const unzipped = gunzipSync(zipped.rawPayload).toString();
    expect(unzipped).toBe(plain.body);
    expect(SummaryResponse.safeParse(JSON.parse(unzipped)).success).toBe(true);
    // filtered summaries are computed per request and sent plain
    const one = await t.app.inject({ method: 'GET', url: '/api/canary/api/summary?labels=x=y', headers: { ...viewer, 'accept-encoding': 'gzip' } });
    expect(one.headers['content-encoding']).toBeUndefined();
    expect(one.json().checks_summary).toEqual([]);
  });

  it('filtered and one-check summaries are never stale', async () => {
    const c = await create('fleet-direct');
    const id = c.checks[0].id;
    await names(); // the whole fleet is ready now
    // a result written straight to the database, which no cache is told about
    await recordResult(t.db, {
      checkId: id, canaryId: c.id, time: new Date(), duration: 5, pass: true, invalid: false, message: 'ok', error: null,
      details: null, severity: null, nextRuntime: null,
    });
    const one = (await t.app.inject({ method: 'GET', url: `/api/canary/api/summary?checkID=${id}`, headers: viewer })).json();
    expect(one.checks_summary[0]).toMatchObject({ status: 'healthy', uptime: { passed: 1, failed: 0 } });
    const byCanary = (await t.app.inject({ method: 'GET', url: `/api/canary/api/summary?canaryID=${c.id}`, headers: viewer })).json();
    expect(byCanary.checks_summary[0]).toMatchObject({ status: 'healthy', uptime: { passed: 1, failed: 0 } });
  });

  it('another replica lists a check created here once the live-update event reaches it', async () => {
    const before = await names(other);
    expect(before).not.toContain('fleet-remote-port');
    await create('fleet-remote');
    await expect.poll(() => names(other), { timeout: 10_000 }).toContain('fleet-remote-port');
  });

  it('refuses a bad window before any cache lookup', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/canary/api/summary?window=forever', headers: viewer });
    expect(res.statusCode).toBe(400);
  });
});
