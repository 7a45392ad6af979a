import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { startKubeApi, type KubeApi, type KubeObject } from './kube-api/index.js';
import { helmPath } from './kube-tools.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The Kubernetes API test server with the CRDs and the chart's RBAC as `helm template ops chart --namespace <ns>`
 * renders it (the console's ClusterRole bound to its service account, the writer and reader ClusterRoles), and
 * `saToken` authenticating as that service account.
 */
export async function startChartCluster(ns: string, saToken: string): Promise<{ kube: KubeApi; saUser: string }> {
  const { stdout } = await run(await helmPath(), ['template', 'ops', join(root, 'chart'), '--namespace', ns], { maxBuffer: 32 << 20 });
  const docs = parseAllDocuments(stdout).map((d) => d.toJS() as KubeObject).filter(Boolean);
  const sa = docs.find((d) => d.kind === 'ServiceAccount')!;
  const saUser = `system:serviceaccount:${ns}:${sa.metadata.name}`;
  const kube = await startKubeApi({
    crdsDir: join(root, 'crds'),
    tokens: [{ token: saToken, user: saUser, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] }],
  });
  for (const d of docs.filter((x) => x.kind === 'ClusterRole' || x.kind === 'ClusterRoleBinding')) kube.apply(d);
  return { kube, saUser };
}
