import { CoreV1Api, KubeConfig, VersionApi } from '@kubernetes/client-node';
import { abortable, errorMessage, testFailure } from './lib.js';
import { ConnectionTestError, type Tester } from './types.js';

/**
 * kubernetes: the kubeconfig in `certificate` (its current context) is used to read `/version` and list namespaces;
 * the payload is the server's version and how many namespaces the credentials may see. A 401/403 is an auth failure.
 */
export const kubernetesTester: Tester = async (c, ctx) => {
  const text = c.certificate?.trim();
  if (!text) throw new ConnectionTestError('certificate must hold a kubeconfig');
  const kc = new KubeConfig();
  try {
    kc.loadFromString(text);
  } catch (err) {
    throw new ConnectionTestError(`the kubeconfig could not be read: ${errorMessage(err).split('\n')[0]}`);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new ConnectionTestError('the kubeconfig has no current context with a cluster');
  const target = (() => {
    try {
      return new URL(cluster.server).host;
    } catch {
      return cluster.server;
    }
  })();
  try {
    return await abortable(
      (async () => {
        const version = await kc.makeApiClient(VersionApi).getCode();
        const namespaces = await kc.makeApiClient(CoreV1Api).listNamespace();
        return { server: cluster.server, version: version.gitVersion, platform: version.platform, namespaces: namespaces.items.length };
      })(),
      ctx.signal,
    );
  } catch (err) {
    const status = (err as { code?: unknown }).code;
    if (status === 401 || status === 403) {
      throw new ConnectionTestError(`authentication failed: the Kubernetes API at ${target} answered ${status} ${status === 401 ? 'Unauthorized' : 'Forbidden'}`);
    }
    if (typeof status === 'number') throw new ConnectionTestError(`the Kubernetes API at ${target} answered ${status}`);
    throw testFailure(err, target, `kubernetes ${target}`);
  }
};
