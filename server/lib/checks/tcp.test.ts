import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
import { tcpCheck } from './tcp.js';

const run = (spec: Record<string, unknown>) => tcpCheck.run(tcpCheck.schema.parse(spec), checkContext());

let server: net.Server;
let port: number;
beforeAll(async () => {
  server = net.createServer((s) => s.end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('tcp endpoint', () => {
  it('connects to ADDRESS:PORT', async () => {
    expect(await run({ endpoint: `127.0.0.1:${port}` })).toMatchObject({ pass: true, data: { host: '127.0.0.1', port } });
  });

  it('fails an endpoint with a scheme, as the reference does (fixture tcp_invalid.yaml), though the port is open', async () => {
    for (const endpoint of [`https://127.0.0.1:${port}`, `tcp://127.0.0.1:${port}`]) {
      expect(await run({ endpoint })).toMatchObject({
        pass: false, error: `Incorrect endpoint format: ${endpoint} should be ADDRESS:PORT`,
      });
    }
  });
});
