import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowIdOf } from '../../server/modules/kubernetes/objects.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { createTestApp, type TestContext } from '../server/helpers.js';
import { until } from '../support/poll.js';

/**
 * A ScrapeConfig CR is judged by the catalog's spec contract, as a console write is: with an unsupported scraper or a
 * bad CEL it gets status Invalid naming the path, and its row keeps the last valid spec (the scraper keeps running
 * as it was).
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
let kube: KubeApi;
let t: TestContext;
let dir: string;

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'kube-scrape-spec-'));
  const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'console-scrape-spec-test', POD_NAMESPACE: 'default' });
});
afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cr = (spec: Record<string, unknown>) => ({
  apiVersion: 'configs.flanksource.com/v1', kind: 'ScrapeConfig', metadata: { name: 'files', namespace: 'default' }, spec,
});
const status = () => kube.get('configs.flanksource.com', 'v1', 'scrapeconfigs', 'default', 'files')?.status as
  { status?: string; errorMessage?: string; observedGeneration?: number } | undefined;

describe('ScrapeConfig CRs', () => {
  it('a bad spec is Invalid naming its path; the row keeps the last valid spec', async () => {
    const good = { schedule: '@every 1h', file: [{ type: 'File', id: '$.id', paths: ['data/*.json'] }] };
    const applied = kube.apply(cr(good));
    const id = rowIdOf(applied.metadata!.uid!);
    await until(async () => (await t.db.query('SELECT spec FROM config_scrapers WHERE id = $1', [id])).rows[0], 'the row');

    kube.apply(cr({ ...good, aws: [{ region: ['eu-west-1'] }], file: [{ ...good.file[0], transform: { expr: 'config.(' } }] }));
    const s = await until(async () => (status()?.status === 'Invalid' ? status() : undefined), 'the Invalid status');
    expect(s!.errorMessage).toContain('the aws scraper is not supported; supported: kubernetes, file, http, sql');
    expect(s!.errorMessage).toMatch(/transform\.expr: invalid CEL/);
    const { rows } = await t.db.query('SELECT spec FROM config_scrapers WHERE id = $1', [id]);
    expect(rows[0].spec).toEqual(good);
  });
});
