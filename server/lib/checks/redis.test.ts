import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
import { redisMissing, startRedis, type RedisServer } from '../../../tests/fixtures/servers/redis.js';
import { closedPort, startHangingServer } from '../../../tests/fixtures/servers/tcp.js';
import { redisCheck } from './redis.js';

const run = (spec: Parameters<typeof redisCheck.run>[0], timeoutMs?: number) =>
  redisCheck.run(redisCheck.schema.parse(spec), checkContext(timeoutMs));

describe.skipIf(redisMissing)(`redis check against a real redis-server${redisMissing ? ` (skipped: ${redisMissing})` : ''}`, () => {
  let open: RedisServer;
  let secured: RedisServer;
  beforeAll(async () => {
    // allSettled: when one fails to start, the other is still stopped in afterAll
    const [a, b] = await Promise.allSettled([
      startRedis(),
      startRedis({ requirePass: 'default-Pa55', users: [{ name: 'checker', password: 'acl-Pa55' }] }),
    ]);
    if (a.status === 'fulfilled') open = a.value;
    if (b.status === 'fulfilled') secured = b.value;
    for (const s of [a, b]) if (s.status === 'rejected') throw s.reason;
  }, 60_000);
  afterAll(async () => {
    await Promise.all([open?.stop(), secured?.stop()]);
  }, 60_000);

  it('passes on PONG via addr (host:port)', async () => {
    const r = await run({ addr: `127.0.0.1:${open.port}`, db: 3 });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ pass: true, data: { result: 'PONG' }, detail: { db: 3 } });
  });

  it('authenticates with a password only, and with an ACL user from a redis:// url', async () => {
    expect((await run({ url: `redis://127.0.0.1:${secured.port}`, password: 'default-Pa55' })).pass).toBe(true);
    const r = await run({ url: `redis://checker:acl-Pa55@127.0.0.1:${secured.port}/2` });
    expect(r).toMatchObject({ pass: true, detail: { db: 2 } });
    expect(JSON.stringify(r)).not.toContain('acl-Pa55');
    expect((await run({ url: `127.0.0.1:${secured.port}`, username: 'checker', password: { value: 'acl-Pa55' } })).pass).toBe(true);
  });

  it('fails without or with a wrong password, without echoing it', async () => {
    const none = await run({ url: `redis://127.0.0.1:${secured.port}` });
    expect(none.pass).toBe(false);
    expect(none.error).toMatch(/NOAUTH/);
    const wrong = await run({ url: `redis://checker:Wrong-Secret@127.0.0.1:${secured.port}` });
    expect(wrong.pass).toBe(false);
    expect(wrong.error).toMatch(/WRONGPASS|invalid/i);
    expect(JSON.stringify(wrong)).not.toContain('Wrong-Secret');
  });

  it('fails when the database index does not exist', async () => {
    const r = await run({ addr: `127.0.0.1:${open.port}`, db: 999 });
    expect(r.pass).toBe(false);
    expect(r.error).toMatch(/DB index is out of range/);
  });
});

describe('redis check target failures and bad specs', () => {
  it('fails (not invalid) when nothing listens', async () => {
    const r = await run({ addr: `127.0.0.1:${await closedPort()}` });
    expect(r.pass).toBe(false);
    expect(r.invalid).toBeFalsy();
    expect(r.error).toMatch(/ECONNREFUSED/);
  });

  it('gives up on a server that never answers PING', async () => {
    const hang = await startHangingServer();
    try {
      const t0 = Date.now();
      const r = await run({ url: `redis://:sekrit-pw@127.0.0.1:${hang.port}` }, 500);
      expect(r).toMatchObject({ pass: false, error: 'timed out after 500 ms' });
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(JSON.stringify(r)).not.toContain('sekrit-pw');
    } finally {
      await hang.close();
    }
  });

  it.each([[{}], [{ url: 'http://h:6379' }], [{ addr: 'host:port' }], [{ url: 'redis://h/abc' }], [{ connection: 'connection://ns/r' }]])(
    'reports %j as invalid',
    async (spec) => {
      expect(await run(spec)).toMatchObject({ pass: false, invalid: true });
    },
  );
});
