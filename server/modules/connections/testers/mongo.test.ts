import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, startHangingServer } from '../../../../tests/fixtures/servers/tcp.js';
import { startMongoWire, type MongoWire } from '../../../../tests/support/mongo-wire.js';
import { startTlsFront } from '../../../../tests/support/tls-front.js';
import { mongoTester } from './mongo.js';
import { ConnectionTestError, type HydratedConnection } from './types.js';

const ctx = (ms = 10_000) => ({ signal: AbortSignal.timeout(ms), timeoutMs: ms });
const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 'documents', namespace: 'default', type: 'mongo', url: '', username: '', password: '', certificate: '',
  insecure_tls: false, properties: {}, secrets: [], ...over,
});
const failure = (p: Promise<unknown>) =>
  p.then(
    () => { throw new Error('the test passed'); },
    (e: unknown) => { expect(e).toBeInstanceOf(ConnectionTestError); return (e as Error).message; },
  );

describe('mongo tester, before connecting', () => {
  it('needs a mongodb:// url', async () => {
    expect(await failure(mongoTester(conn({ url: '' }), ctx()))).toMatch(/url is required/);
    expect(await failure(mongoTester(conn({ url: 'http://mongo.example' }), ctx()))).toMatch(/mongodb:\/\//);
  });
});

// No MongoDB server installs here (neither apt nor npm ships mongod): these run the real driver against a
// wire-protocol stand-in (tests/support/mongo-wire.ts) that speaks hello, ping and SCRAM-SHA-256 as mongod does.
describe('mongo tester against a MongoDB wire-protocol stand-in (SCRAM-SHA-256)', () => {
  let mongo: MongoWire;
  beforeAll(async () => {
    mongo = await startMongoWire();
  });
  afterAll(async () => {
    await mongo?.close();
  });

  it('signs in with the username and password fields and pings', async () => {
    const before = mongo.authentications();
    await expect(mongoTester(conn({ url: `${mongo.url}/admin`, username: mongo.user, password: mongo.password }), ctx())).resolves.toEqual({
      url: `${mongo.url}/admin`, database: 'admin', ping: 1, version: '7.0.0',
    });
    expect(mongo.authentications()).toBeGreaterThan(before);
  });

  it('signs in with credentials in the url (as the hydrator fills $(username)/$(password)) and masks them', async () => {
    const url = `mongodb://${mongo.user}:${encodeURIComponent(mongo.password)}@127.0.0.1:${mongo.port}/app?authSource=admin`;
    const r = await mongoTester(conn({ url }), ctx());
    expect(r).toMatchObject({ database: 'app', ping: 1 });
    expect(JSON.stringify(r)).not.toContain(encodeURIComponent(mongo.password));
  });

  it('says the password was refused, without the password', async () => {
    const message = await failure(mongoTester(conn({ url: `${mongo.url}/admin`, username: mongo.user, password: 'Wr0ng-pass' }), ctx()));
    expect(message).toBe(`authentication failed: 127.0.0.1:${mongo.port} refused the username or password`);
    expect(message).not.toContain('Wr0ng-pass');
  });

  it('says an unknown user was refused', async () => {
    expect(await failure(mongoTester(conn({ url: mongo.url, username: 'nobody', password: mongo.password }), ctx()))).toMatch(/^authentication failed/);
  });

  it('pings without credentials, as mongod allows ping before authentication', async () => {
    await expect(mongoTester(conn({ url: mongo.url }), ctx())).resolves.toMatchObject({ database: 'admin', ping: 1 });
  });

  it('tls=true: refuses a certificate it cannot trust, passes with insecure_tls', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conn-mongo-tls-'));
    const front = await startTlsFront(dir, () => mongo.port, 'mongo test front');
    try {
      const url = `${front.url.replace('https://', 'mongodb://')}/admin?tls=true`;
      const c = conn({ url, username: mongo.user, password: mongo.password });
      expect(await failure(mongoTester(c, ctx()))).toMatch(/^TLS: the certificate of 127\.0\.0\.1:\d+ is not trusted/);
      await expect(mongoTester({ ...c, insecure_tls: true }, ctx())).resolves.toMatchObject({ ping: 1 });
    } finally {
      await front.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('says nothing listens on a closed port', async () => {
    const port = await closedPort();
    expect(await failure(mongoTester(conn({ url: `mongodb://127.0.0.1:${port}` }), ctx(3000)))).toBe(
      `connection refused: nothing accepts connections at 127.0.0.1:${port}`,
    );
  });

  it('says the host does not resolve', async () => {
    expect(await failure(mongoTester(conn({ url: 'mongodb://no-such-host.invalid:27017' }), ctx(3000)))).toMatch(/^host not found: no-such-host\.invalid/);
  });

  it('gives up on a server that accepts and never answers when the time is up', async () => {
    const hang = await startHangingServer();
    try {
      expect(await failure(mongoTester(conn({ url: `mongodb://127.0.0.1:${hang.port}` }), ctx(700)))).toMatch(/timed out|aborted/);
      expect(hang.connections()).toBeGreaterThan(0);
    } finally {
      await hang.close();
    }
  });
});
