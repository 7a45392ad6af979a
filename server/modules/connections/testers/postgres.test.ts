import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { closedPort, startHangingServer } from '../../../../tests/fixtures/servers/tcp.js';
import { postgresTester } from './postgres.js';
import type { HydratedConnection } from './types.js';

const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 'p', namespace: 'default', type: 'postgres', url: '', username: '', password: '', certificate: '', insecure_tls: false,
  properties: {}, secrets: [], ...over,
});
const ctx = (ms = 10_000) => ({ signal: AbortSignal.timeout(ms), timeoutMs: ms });

describe('postgres tester (the test run\'s own PostgreSQL)', () => {
  const admin = new URL(inject('adminUrl'));
  const password = decodeURIComponent(admin.password);
  const bare = new URL(admin);
  bare.username = '';
  bare.password = '';

  it('passes: version, database and user, credentials from the fields or the url', async () => {
    const fromFields = await postgresTester(conn({ url: bare.toString(), username: decodeURIComponent(admin.username), password }), ctx());
    expect(fromFields).toEqual({ version: expect.stringMatching(/^PostgreSQL \d+/), database: admin.pathname.slice(1), user: decodeURIComponent(admin.username) });
    expect(await postgresTester(conn({ url: admin.toString() }), ctx())).toMatchObject({ user: decodeURIComponent(admin.username) });
  });

  it('fails: wrong password (auth), missing database, closed port, not a postgres url', async () => {
    await expect(postgresTester(conn({ url: bare.toString(), username: admin.username, password: 'wrong-one' }), ctx())).rejects.toThrow(/^authentication failed/);
    const missing = new URL(admin);
    missing.pathname = '/no_such_db';
    await expect(postgresTester(conn({ url: missing.toString() }), ctx())).rejects.toThrow(/^database not found/);
    await expect(postgresTester(conn({ url: `postgres://127.0.0.1:${await closedPort()}/x` }), ctx())).rejects.toThrow(/^connection refused/);
    await expect(postgresTester(conn({ url: 'mysql://x/y' }), ctx())).rejects.toThrow(/postgres:\/\/ or postgresql:\/\//);
  });

  it('a hanging server ends when the signal aborts', async () => {
    const hang = await startHangingServer();
    try {
      await expect(postgresTester(conn({ url: `postgres://127.0.0.1:${hang.port}/x` }), ctx(200))).rejects.toThrow();
      expect(hang.connections()).toBe(1);
    } finally {
      await hang.close();
    }
  });
});
