import { describe, expect, it } from 'vitest';
import { isWatch, kubeIdentityFor, upstreamPath } from '../../server/modules/kubernetes/proxy.js';
import { buildKubeconfig, kubeconfigFileName } from '../../server/modules/kubernetes/kubeconfig.js';
import { parse } from 'yaml';

describe('kubeproxy helpers', () => {
  it('keeps the API server URL path in front of the forwarded one (clusters behind a path prefix, e.g. Rancher)', () => {
    expect(upstreamPath(new URL('https://10.0.0.1:6443'), '/api/v1/pods?watch=true')).toBe('/api/v1/pods?watch=true');
    expect(upstreamPath(new URL('https://rancher.example.com/k8s/clusters/c-abc/'), '/apis')).toBe('/k8s/clusters/c-abc/apis');
    expect(upstreamPath(new URL('https://10.0.0.1'), 'version')).toBe('/version');
  });

  it('recognises watch requests (kept open for minutes; ended on shutdown)', () => {
    expect(isWatch('/apis/canaries.flanksource.com/v1/canaries?watch=true&resourceVersion=5')).toBe(true);
    expect(isWatch('/api/v1/pods?watch=1')).toBe(true);
    expect(isWatch('/api/v1/watch/namespaces/default/pods')).toBe(true);
    expect(isWatch('/apis/apps/v1/watch/deployments')).toBe(true);
    expect(isWatch('/api/v1/pods?watch=false')).toBe(false);
    expect(isWatch('/api/v1/namespaces/watch/pods')).toBe(false); // a namespace called "watch"
    expect(isWatch('/apis/canaries.flanksource.com/v1/canaries?labelSelector=watch%3Dtrue')).toBe(false);
  });

  it('maps console roles to the writer or the reader identity', () => {
    expect(kubeIdentityFor(['admin']).user).toBe('ops-console-writer');
    expect(kubeIdentityFor(['editor']).groups).toEqual(['ops-console:writers']);
    for (const role of ['commander', 'responder', 'viewer'] as const) expect(kubeIdentityFor([role]).user).toBe('ops-console-reader');
    expect(kubeIdentityFor(['viewer', 'editor']).user).toBe('ops-console-writer'); // roles combine
  });

  it('builds a kubeconfig for a public URL with a path and a port', () => {
    const kc = parse(buildKubeconfig({ publicUrl: 'https://ops.example.com:8443/console', token: 't' }));
    expect(kc.clusters[0].cluster).toEqual({ server: 'https://ops.example.com:8443/console/kubeproxy' });
    expect(kubeconfigFileName('https://ops.example.com:8443/console')).toBe('ops.example.com-kubeconfig.yaml');
    expect(kubeconfigFileName('http://[::1]:8080')).toBe('__1-kubeconfig.yaml');
  });
});
