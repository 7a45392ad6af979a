import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindByKind } from '../../server/modules/kubernetes/kinds.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { kubectl } from '../support/kube-tools.js';
import { until } from '../support/poll.js';
import { createTestApp, type TestContext } from '../server/helpers.js';

/**
 * config-db's own ScrapeConfig examples (tests/fixtures/config-db, copied unchanged), applied with kubectl as a user
 * would: each validates against the console's CRD, and the console judges it: the supported types (kubernetes, file,
 * http, sql) are not Invalid; trivy is Invalid with the path message `spec.trivy: the trivy scraper is not supported; ...`.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const SCRAPE = kindByKind('ScrapeConfig')!;
// kubernetes, http-ms-graph and access_logs call the CEL functions jq(), uniq(), len() and catalog.traverse()
const SUPPORTED = ['file-car', 'file-exclusion', 'file-local-creation-date', 'file-mask', 'http-scraper', 'sql', 'kubernetes', 'http-ms-graph', 'access_logs'];

let kube: KubeApi;
let t: TestContext;
let dir: string;
let kubeconfig: string;

const fixture = (name: string) => join(root, 'tests/fixtures/config-db', `${name}.yaml`);
const crName = (name: string) => /^\s{2}name:\s*(\S+)/m.exec(readFileSync(fixture(name), 'utf8'))![1];
/** The fixture's own namespace (ms-graph and access-logs are in `mc`), else default. */
const namespace = (name: string) => /^\s{2}namespace:\s*(\S+)/m.exec(readFileSync(fixture(name), 'utf8'))?.[1] ?? 'default';
const status = (name: string, ns = 'default') =>
  kube.get(SCRAPE.group, SCRAPE.version, SCRAPE.plural, ns, name)?.status as { status?: string; errorMessage?: string; observedGeneration?: number } | undefined;

beforeAll(async () => {
  kube = await startKubeApi({ crdsDir: join(root, 'crds') });
  dir = mkdtempSync(join(tmpdir(), 'catalog-ref-fixtures-'));
  kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
  t = await createTestApp({ KUBECONFIG: kubeconfig, POD_NAME: 'console-ref-fixtures', POD_NAMESPACE: 'default' });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await kube?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('config-db fixtures applied with kubectl', () => {
  it('kubernetes, file, http and sql examples validate against the CRD and are judged valid', async () => {
    for (const ns of new Set(SUPPORTED.map(namespace))) {
      if (ns !== 'default') expect((await kubectl(kubeconfig, ['create', 'namespace', ns])).code).toBe(0);
    }
    for (const name of SUPPORTED) {
      const r = await kubectl(kubeconfig, ['apply', '-n', namespace(name), '-f', fixture(name)]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
    }
    for (const name of SUPPORTED) {
      const s = await until(async () => status(crName(name), namespace(name))?.observedGeneration ? status(crName(name), namespace(name)) : undefined, `the status of ${name}`);
      expect(s?.status, `${name}: ${s?.errorMessage}`).not.toBe('Invalid');
    }
  });

  it('trivy is Invalid with the path message', async () => {
    const r = await kubectl(kubeconfig, ['apply', '-n', 'default', '-f', fixture('trivy')]);
    expect(r.code, r.stderr).toBe(0);
    const s = await until(async () => (status('trivy-scraper')?.status ? status('trivy-scraper') : undefined), 'the trivy status');
    expect(s).toMatchObject({ status: 'Invalid', errorMessage: 'spec.trivy: the trivy scraper is not supported; supported: kubernetes, file, http, sql' });
  });
});
