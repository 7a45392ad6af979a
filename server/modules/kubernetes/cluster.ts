import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import type { Config } from '../../config.js';

/** Where a pod finds its service-account credentials (client-node's loadFromCluster reads the same files). */
const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** The console's own connection to the Kubernetes API server, shared by the informers, the leader and /kubeproxy. */
export interface ClusterConnection {
  /** client-node's config: make API clients with `kc.makeApiClient(...)`, informers with `makeInformer(kc, ...)`. */
  kc: KubeConfig;
  /** The API server's base URL, without a trailing slash. */
  server: string;
  /** Whether the server's certificate is left unverified (kubeconfig `insecure-skip-tls-verify`). */
  skipTLSVerify: boolean;
  /** Where the credentials came from, for the settings page. */
  source: 'kubeconfig' | 'in-cluster';
  /** Namespaces to watch; empty means all. */
  namespaces: string[];
  /** This replica's identity and the Lease that elects the leader. */
  identity: string;
  leaseNamespace: string;
  leaseName: string;
}

/**
 * Connects to Kubernetes when the configuration allows it: KUBECONFIG (its current context) first, then in-cluster
 * credentials. Returns null when there is nothing to connect to (a laptop without KUBECONFIG), so callers run without
 * Kubernetes. Throws a readable error when KUBECONFIG is set but unusable, since that is a mistake to report at start.
 */
export function loadCluster(config: Config): ClusterConnection | null {
  if (config.KUBERNETES === 'off') return null;
  const kc = new KubeConfig();
  let source: ClusterConnection['source'];
  if (config.KUBECONFIG) {
    if (!existsSync(config.KUBECONFIG)) throw new Error(`KUBECONFIG ${config.KUBECONFIG}: no such file`);
    kc.loadFromFile(config.KUBECONFIG);
    source = 'kubeconfig';
  } else if (process.env.KUBERNETES_SERVICE_HOST && existsSync(IN_CLUSTER_TOKEN)) {
    kc.loadFromCluster();
    source = 'in-cluster';
  } else {
    return null;
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`${source === 'kubeconfig' ? `KUBECONFIG ${config.KUBECONFIG}` : 'in-cluster config'}: no current cluster`);
  return {
    kc,
    server: cluster.server.replace(/\/+$/, ''),
    skipTLSVerify: cluster.skipTLSVerify,
    source,
    namespaces: (config.WATCH_NAMESPACES ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    identity: config.POD_NAME ?? hostname(),
    leaseNamespace: config.POD_NAMESPACE,
    leaseName: config.LEADER_LEASE_NAME,
  };
}
