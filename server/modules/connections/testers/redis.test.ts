import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisMissing, startRedis, type RedisServer } from '../../../../tests/fixtures/servers/redis.js';
import { closedPort, startHangingServer } from '../../../../tests/fixtures/servers/tcp.js';
import { redisTester } from './redis.js';
import type { HydratedConnection } from './types.js';

const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 'r', namespace: 'default', type: 'redis', url: '', username: '', password: '', certificate: '', insecure_tls: false,
  properties: {}, secrets: [], ...over,
});
const ctx = (ms = 10_000) => ({ signal: AbortSignal.timeout(ms), timeoutMs: ms });

describe.skipIf(redisMissing)('redis tester against redis-server', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis({ requirePass: 'r3dis-pw', users: [{ name: 'app', password: 'app-pw' }] });
  });
  afterAll(async () => redis?.stop());

  it('passes with PING: db from properties or the url path, ACL user from the fields', async () => {
    expect(await redisTester(conn({ url: `redis://127.0.0.1:${redis.port}`, password: 'r3dis-pw', properties: { db: '3' } }), ctx())).toMatchObject({ ping: 'PONG', db: 3, version: expect.any(String) });
    expect(await redisTester(conn({ url: `127.0.0.1:${redis.port}/5`, password: 'r3dis-pw' }), ctx())).toMatchObject({ db: 5 });
    expect(await redisTester(conn({ url: `redis://127.0.0.1:${redis.port}`, username: 'app', password: 'app-pw' }), ctx())).toMatchObject({ ping: 'PONG' });
  });

  it('fails: wrong password, no password, a db that is not a number', async () => {
    await expect(redisTester(conn({ url: `redis://127.0.0.1:${redis.port}`, password: 'nope' }), ctx())).rejects.toThrow(/^authentication failed/);
    await expect(redisTester(conn({ url: `redis://127.0.0.1:${redis.port}` }), ctx())).rejects.toThrow(/^authentication failed: NOAUTH/);
    await expect(redisTester(conn({ url: `redis://127.0.0.1:${redis.port}`, properties: { db: 'x' } }), ctx())).rejects.toThrow(/db must be a whole number/);
  });
});

describe('redis tester without a server', () => {
  it('fails on a closed port and ends a hanging one when the signal aborts', async () => {
    await expect(redisTester(conn({ url: `redis://127.0.0.1:${await closedPort()}` }), ctx())).rejects.toThrow(/^connection refused/);
    const hang = await startHangingServer();
    try {
      await expect(redisTester(conn({ url: `redis://127.0.0.1:${hang.port}` }), ctx(200))).rejects.toThrow();
    } finally {
      await hang.close();
    }
  });
});
