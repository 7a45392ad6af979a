import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAlert, startFakeAlertmanager } from '../../../tests/fixtures/servers/alertmanager.js';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
import type { HttpServer } from '../../../tests/fixtures/servers/http.js';
import { closedPort, startHangingServer } from '../../../tests/fixtures/servers/tcp.js';
import { alertFilters, alertmanagerCheck } from './alertmanager.js';

const run = (spec: Parameters<typeof alertmanagerCheck.run>[0], timeoutMs?: number) =>
  alertmanagerCheck.run(alertmanagerCheck.schema.parse(spec), checkContext(timeoutMs));

const names = (r: { data: Record<string, unknown> }) => (r.data.alerts as Array<{ name: string }>).map((a) => a.name).sort();

describe('alertmanager check against a fake Alertmanager API v2', () => {
  let am: HttpServer;
  beforeAll(async () => {
    am = await startFakeAlertmanager([
      makeAlert(
        { alertname: 'KubePodCrashLooping', namespace: 'prod', pod: 'api-7d9', container: 'app', job: 'kube-state-metrics', severity: 'critical' },
        { description: 'Pod prod/api-7d9 is crash looping', summary: 'crash looping' },
      ),
      makeAlert({ alertname: 'KubeDeploymentReplicasMismatch', namespace: 'staging', deployment: 'web', severity: 'warning' }, { summary: 'replicas mismatch' }),
      makeAlert({ alertname: 'Watchdog', severity: 'none' }, { message: 'always firing' }),
      makeAlert({ alertname: 'NodeDiskFull', node: 'node-1', severity: 'critical' }, {}, 'suppressed'),
    ]);
  });
  afterAll(async () => {
    await am?.close();
  });

  it('lists every alert with the reference name and message, and passes', async () => {
    const r = await run({ url: am.url });
    expect(r.error).toBeUndefined();
    expect(r.pass).toBe(true);
    expect(r.data.count).toBe(4);
    expect(names(r)).toEqual(['KubeDeploymentReplicasMismatch/staging/web', 'KubePodCrashLooping/prod/api-7d9/app', 'NodeDiskFull/node-1', 'Watchdog']);
    const crash = (r.data.alerts as Array<Record<string, unknown>>).find((a) => a.labels && (a.labels as Record<string, string>).pod === 'api-7d9');
    expect(crash).toMatchObject({ message: 'Pod prod/api-7d9 is crash looping', state: 'active', annotations: { summary: 'crash looping' } });
    expect(crash?.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });

  it('selects by alert names (any of them), label regexes, ignore and exclude_filters', async () => {
    expect(names(await run({ url: am.url, alerts: ['KubePod.*', 'Watchdog'] }))).toEqual(['KubePodCrashLooping/prod/api-7d9/app', 'Watchdog']);
    expect(names(await run({ url: am.url, filters: { severity: 'critical|warning' }, ignore: ['NodeDisk.*'] }))).toEqual([
      'KubeDeploymentReplicasMismatch/staging/web',
      'KubePodCrashLooping/prod/api-7d9/app',
    ]);
    expect(names(await run({ url: am.url, exclude_filters: { namespace: 'prod|staging' } }))).toEqual(['NodeDiskFull/node-1', 'Watchdog']);
    expect(am.requests.at(-1)!.url.searchParams.getAll('filter')).toEqual(['namespace!~"prod|staging"']);
  });

  it('quotes values so commas and quotes survive the matcher syntax', () => {
    expect(alertFilters({ filters: { summary: 'a, "b"' } })).toEqual(['summary=~"a, \\"b\\""']);
  });

  it('passes on no matching alerts unless markFailOnEmpty is set', async () => {
    expect(await run({ url: am.url, alerts: ['Nothing'] })).toMatchObject({ pass: true, data: { count: 0, alerts: [] } });
    expect(await run({ url: am.url, alerts: ['Nothing'], markFailOnEmpty: true })).toMatchObject({ pass: false, error: 'no alerts matched' });
  });

  it('reports a filter Alertmanager rejects as an invalid spec', async () => {
    const r = await run({ url: am.url, alerts: ['(unclosed'] });
    expect(r).toMatchObject({ pass: false, invalid: true });
    expect(r.error).toMatch(/bad matcher format/);
  });

  it('reports an invalid label name without asking the server', async () => {
    const before = am.requests.length;
    expect(await run({ url: am.url, filters: { 'bad-label': 'x' } })).toMatchObject({ invalid: true, error: expect.stringMatching(/invalid label name/) });
    expect(am.requests.length).toBe(before);
  });
});

describe('alertmanager check target failures and bad specs', () => {
  it('fails when nothing listens', async () => {
    const r = await run({ url: `http://127.0.0.1:${await closedPort()}` });
    expect(r).toMatchObject({ pass: false });
    expect(r.invalid).toBeFalsy();
    expect(r.error).toMatch(/ECONNREFUSED/);
  });

  it('gives up on a server that never answers', async () => {
    const hang = await startHangingServer();
    try {
      expect(await run({ url: hang.url }, 500)).toMatchObject({ pass: false, error: 'timed out after 500 ms' });
    } finally {
      await hang.close();
    }
  });

  it.each([[{}], [{ url: 'am.local:9093' }], [{ connection: 'connection://monitoring/am' }]])('reports %j as invalid', async (spec) => {
    expect(await run(spec)).toMatchObject({ pass: false, invalid: true });
  });
});
