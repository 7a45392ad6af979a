import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeApi, type KubeApi } from '../../../../tests/support/kube-api/index.js';
import { kubernetesTester } from './kubernetes.js';
import type { HydratedConnection } from './types.js';

const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 'k', namespace: 'default', type: 'kubernetes', url: '', username: '', password: '', certificate: '', insecure_tls: false,
  properties: {}, secrets: [], ...over,
});
const ctx = { signal: new AbortController().signal, timeoutMs: 10_000 };
let kube: KubeApi;
let dir: string;
const kubeconfig = (opts: { token?: string; insecure?: boolean } = {}) => {
  const path = join(dir, `kc-${Math.random()}`);
  kube.writeKubeconfig(path, opts);
  return readFileSync(path, 'utf8');
};
beforeAll(async () => {
  kube = await startKubeApi();
  dir = mkdtempSync(join(tmpdir(), 'conn-kube-'));
});
afterAll(async () => {
  await kube?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('kubernetes tester (kubeconfig in certificate)', () => {
  it('passes: the server version and how many namespaces it lists', async () => {
    expect(await kubernetesTester(conn({ certificate: kubeconfig() }), ctx)).toMatchObject({ version: 'v1.35.0-kube-api-test', namespaces: expect.any(Number) });
  });

  it('fails: a wrong token (401), no kubeconfig, a kubeconfig without a current context', async () => {
    await expect(kubernetesTester(conn({ certificate: kubeconfig({ token: 'wrong' }) }), ctx)).rejects.toThrow(/^authentication failed: .* 401 Unauthorized/);
    await expect(kubernetesTester(conn({}), ctx)).rejects.toThrow(/certificate must hold a kubeconfig/);
    await expect(kubernetesTester(conn({ certificate: 'apiVersion: v1\nkind: Config\n' }), ctx)).rejects.toThrow(/no current context/);
  });
});
