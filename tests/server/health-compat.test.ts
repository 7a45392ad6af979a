import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { afterAll, describe, expect, it } from 'vitest';
import { celToText, evalCel } from '../../server/lib/cel.js';
import { executeCheck } from '../../server/modules/health/runner.js';
import { validateCanarySpec } from '../../server/modules/health/spec.js';

// Manifests written the way reference (canary-checker) users write them: what the console must accept and run alike.

const run = (type: string, spec: Record<string, unknown>) =>
  executeCheck({ id: 'c', canaryId: 'k', type, name: String(spec.name ?? 'x'), spec });

describe('CEL helpers of the reference', () => {
  const cel = (expr: string) => celToText(evalCel(expr, {}));

  it('Duration() reads Go units plus days and weeks, and compares with CEL durations', () => {
    expect(cel("Duration('7d') == duration('168h')")).toBe('true');
    expect(cel("Duration('1w') == Duration('7d')")).toBe('true');
    expect(cel("Duration('1d12h30m') == duration('36h30m')")).toBe('true');
    expect(cel("Duration('1.5h') == duration('90m')")).toBe('true');
    expect(cel("Duration('-2d') < duration('0s')")).toBe('true');
    expect(cel("Duration('3d') > duration('71h')")).toBe('true');
    expect(() => cel("Duration('7 days')")).toThrow(/invalid duration "7 days"/);
    expect(() => cel("Duration('')")).toThrow(/invalid duration/);
  });

  it('Age() is the time since an RFC 3339 timestamp', () => {
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    expect(cel(`Age('${hourAgo}') > duration('59m') && Age('${hourAgo}') < duration('61m')`)).toBe('true');
    expect(cel("Age('2020-01-01T00:00:00Z') > Duration('3d')")).toBe('true');
    expect(() => cel("Age('yesterday')")).toThrow(/invalid timestamp/);
  });
});

describe('http sslAge as a duration', () => {
  const servers: https.Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));
  async function serveWithCert(days: number): Promise<number> {
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      notBeforeDate: new Date(Date.now() - 86_400_000), notAfterDate: new Date(Date.now() + days * 86_400_000), keySize: 2048,
    } as never);
    const server = https.createServer({ key: pems.private, cert: pems.cert }, (_req, res) => res.end('ok'));
    servers.push(server);
    return new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
  }

  it("`sslAge > Duration('7d')` passes with 30 days left and fails with 3, as in the reference's fixtures", async () => {
    const [later, soon] = await Promise.all([serveWithCert(30), serveWithCert(3)]);
    const check = (port: number) => run('http', {
      name: 'tls', url: `https://127.0.0.1:${port}/`, tlsConfig: { insecureSkipVerify: true },
      test: { expr: "code in [200,201,301] && sslAge > Duration('7d')" },
      display: { expr: "string(sslAge > duration('600h'))" },
    });
    expect(await check(later)).toMatchObject({ pass: true, message: 'true' });
    expect(await check(soon)).toMatchObject({ pass: false, invalid: false, error: expect.stringContaining('test failed') });
    // a template prints it as Go prints a duration
    const shown = await run('http', { name: 't', url: `https://127.0.0.1:${later}/`, tlsConfig: { insecureSkipVerify: true }, display: { template: 'age={{.sslAge}}' } });
    expect(shown.message).toMatch(/^age=7(19|20)h\d+m[\d.]+s$/);
  });
});

describe('checks without a name', () => {
  it('are named after their description, else their endpoint, as the reference names results', () => {
    const v = validateCanarySpec({
      interval: 30,
      exec: [{ description: 'says hello', script: 'echo hello' }],
      tcp: [{ endpoint: 'db.internal:5432' }],
      http: [{ url: 'https://status.example.org/health' }, { name: 'named', description: 'kept as description', url: 'https://a.example.org' }],
    });
    expect(v.checks.map((c) => [c.type, c.name, c.description])).toEqual([
      ['exec', 'says hello', 'says hello'],
      ['tcp', 'db.internal:5432', null],
      ['http', 'https://status.example.org/health', null],
      ['http', 'named', 'kept as description'],
    ]);
  });

  it('two nameless checks on one endpoint collide, and the message says which name', () => {
    expect(() => validateCanarySpec({ http: [{ url: 'https://a.example.org', responseCodes: [401] }, { url: 'https://a.example.org' }] }))
      .toThrow('spec.http.1.name: duplicate http check name "https://a.example.org"');
  });

  it('run from their stored spec as written (no name in it)', async () => {
    const out = await executeCheck({ id: 'c', canaryId: 'k', type: 'exec', name: 'says hello', spec: { description: 'says hello', script: 'printf hello' } });
    expect(out).toMatchObject({ pass: true, message: 'hello' });
  });
});

describe('`results`: a result\'s details, as the reference binds them', () => {
  it('exec: results.stdout in test, display and templates', async () => {
    const spec = {
      name: 'env', script: 'echo -n ${GREETING} ${TARGET}', env: [{ name: 'GREETING', value: 'hello' }, { name: 'TARGET', value: 'world' }],
      test: { expr: 'results.stdout == "hello world" && results.exitCode == 0' },
      display: { template: 'said {{.results.stdout}}' },
    };
    expect(await run('exec', spec)).toMatchObject({ pass: true, message: 'said hello world' });
    expect(await run('exec', { ...spec, script: 'echo -n goodbye' })).toMatchObject({ pass: false, invalid: false, error: expect.stringContaining('test failed') });
  });
});
