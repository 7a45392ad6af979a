import { describe, expect, it } from 'vitest';
import { closedPort, startHangingServer } from '../../../../tests/fixtures/servers/tcp.js';
import { mysqlTester } from './mysql.js';
import type { HydratedConnection } from './types.js';

// passing and a wrong password run against MariaDB in tests/server/connections-test.test.ts (one mariadbd per run)
const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 'm', namespace: 'default', type: 'mysql', url: '', username: '', password: '', certificate: '', insecure_tls: false,
  properties: {}, secrets: [], ...over,
});
const ctx = (ms = 10_000) => ({ signal: AbortSignal.timeout(ms), timeoutMs: ms });

describe('mysql tester', () => {
  it('reads mysql:// urls and the go-mysql DSN the reference writes', async () => {
    const port = await closedPort();
    await expect(mysqlTester(conn({ url: `mysql://u:p@127.0.0.1:${port}/db` }), ctx())).rejects.toThrow(`connection refused: nothing accepts connections at 127.0.0.1:${port}`);
    await expect(mysqlTester(conn({ url: `u:p@tcp(127.0.0.1:${port})/db` }), ctx())).rejects.toThrow(`connection refused: nothing accepts connections at 127.0.0.1:${port}`);
    await expect(mysqlTester(conn({ url: 'postgres://x/y' }), ctx())).rejects.toThrow(/mysql:\/\/ or mariadb:\/\//);
  });

  it('a hanging server ends when the signal aborts', async () => {
    const hang = await startHangingServer();
    try {
      await expect(mysqlTester(conn({ url: `mysql://127.0.0.1:${hang.port}/x` }), ctx(200))).rejects.toThrow();
    } finally {
      await hang.close();
    }
  });
});
