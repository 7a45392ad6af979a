import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { abortable } from '../../../../lib/checks/lib/abort.js';
import { errorText } from '../../../../lib/checks/util.js';
import { LookupError } from '../types.js';
import { isObj, MAX_LOOKUP_RESULTS } from './results.js';

/**
 * The `kubernetes` lookup (the reference's KubernetesCheck as a lookup): lists `kind` through the console's own
 * cluster connection, in the namespaces `namespaceSelector` picks (all when absent), filtered by `resource`'s (or the
 * entry's own) name, labelSelector and fieldSelector. Yields the objects as the API server sends them.
 */

type Obj = Record<string, unknown>;

/** apiVersion of the kinds a lookup names without one (the reference resolves any kind by discovery). */
const WELL_KNOWN: Record<string, string> = {
  pod: 'v1', service: 'v1', configmap: 'v1', namespace: 'v1', node: 'v1', persistentvolumeclaim: 'v1',
  persistentvolume: 'v1', serviceaccount: 'v1', endpoints: 'v1', event: 'v1',
  deployment: 'apps/v1', statefulset: 'apps/v1', daemonset: 'apps/v1', replicaset: 'apps/v1',
  job: 'batch/v1', cronjob: 'batch/v1', ingress: 'networking.k8s.io/v1',
};
const CANONICAL: Record<string, string> = {
  configmap: 'ConfigMap', persistentvolumeclaim: 'PersistentVolumeClaim', persistentvolume: 'PersistentVolume',
  serviceaccount: 'ServiceAccount', statefulset: 'StatefulSet', daemonset: 'DaemonSet', replicaset: 'ReplicaSet',
  cronjob: 'CronJob',
};

interface Selector { name?: string; labelSelector?: string; fieldSelector?: string }

function selector(v: unknown): Selector {
  if (typeof v === 'string') return { name: v };
  if (!isObj(v)) return {};
  const s = (k: string) => (typeof v[k] === 'string' && (v[k] as string).trim() ? (v[k] as string).trim() : undefined);
  return { name: s('name'), labelSelector: s('labelSelector'), fieldSelector: s('fieldSelector') };
}

/** The parts of an entry the lookup reads. */
export function kubernetesQuery(path: string, entry: Obj): { apiVersion: string; kind: string; namespaces: Selector; resource: Selector } {
  const rawKind = typeof entry.kind === 'string' ? entry.kind.trim() : '';
  if (!rawKind) throw new LookupError(`${path}.kind: required`);
  const lower = rawKind.toLowerCase();
  // a Secret's data would become component fields, shown to every viewer
  if (lower === 'secret') throw new LookupError(`${path}.kind: Secrets are not looked up (their data would be shown on components)`);
  const apiVersion = typeof entry.apiVersion === 'string' && entry.apiVersion.trim() ? entry.apiVersion.trim() : WELL_KNOWN[lower];
  if (!apiVersion) throw new LookupError(`${path}.apiVersion: required for kind ${rawKind}`);
  const kind = WELL_KNOWN[lower] ? CANONICAL[lower] ?? lower[0].toUpperCase() + lower.slice(1) : rawKind;
  const own = selector(entry);
  const resource = { ...own, ...Object.fromEntries(Object.entries(selector(entry.resource)).filter(([, v]) => v !== undefined)) };
  return { apiVersion, kind, namespaces: selector(entry.namespaceSelector ?? entry.namespace), resource };
}

/** Lists the objects; an unreachable cluster or a refusal is a LookupError naming the entry. */
export async function lookupKubernetes(path: string, entry: Obj, kc: KubeConfig | null | undefined, signal: AbortSignal): Promise<Obj[]> {
  const q = kubernetesQuery(path, entry);
  if (!kc) throw new LookupError(`${path}: the console has no cluster connection`);
  const api = KubernetesObjectApi.makeApiClient(kc);
  const list = async (apiVersion: string, kind: string, namespace: string | undefined, sel: Selector): Promise<KubernetesObject[]> => {
    const res = await abortable(api.list(apiVersion, kind, namespace, undefined, undefined, undefined, sel.fieldSelector, sel.labelSelector, MAX_LOOKUP_RESULTS + 1), signal, () => {});
    if (res.metadata?._continue) throw new LookupError(`${path}: more than the ${MAX_LOOKUP_RESULTS.toLocaleString('en')} results a lookup may yield`);
    return res.items;
  };
  try {
    let namespaces: Array<string | undefined> = [undefined];
    if (q.namespaces.name) namespaces = q.namespaces.name.split(',').map((n) => n.trim()).filter(Boolean);
    else if (q.namespaces.labelSelector || q.namespaces.fieldSelector) {
      namespaces = (await list('v1', 'Namespace', undefined, q.namespaces)).map((n) => n.metadata?.name).filter((n): n is string => !!n);
    }
    const names = q.resource.name ? new Set(q.resource.name.split(',').map((n) => n.trim())) : null;
    const out: Obj[] = [];
    for (const ns of namespaces) {
      for (const item of await list(q.apiVersion, q.kind, ns, q.resource)) {
        if (names && !names.has(item.metadata?.name ?? '')) continue;
        // client-node builds model classes (dates as Date): the lookup yields plain JSON, as the API server sent it
        out.push(JSON.parse(JSON.stringify(item)) as Obj);
      }
      if (out.length > MAX_LOOKUP_RESULTS) throw new LookupError(`${path}: more than the ${MAX_LOOKUP_RESULTS.toLocaleString('en')} results a lookup may yield`);
    }
    return out;
  } catch (err) {
    if (err instanceof LookupError) throw err;
    throw new LookupError(`${path}: ${kubeErrorText(err, signal)}`);
  }
}

/** One line, no response headers: client-node's ApiException carries the whole answer in its message. */
function kubeErrorText(err: unknown, signal: AbortSignal): string {
  if (signal.aborted) return errorText(signal.reason);
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'number') {
    const body = (err as { body?: unknown }).body;
    let message = '';
    try {
      message = String((typeof body === 'string' ? JSON.parse(body) as Obj : (body as Obj | undefined))?.message ?? '');
    } catch { /* not a Status */ }
    return `the cluster answered ${code}${message ? `: ${message.slice(0, 300)}` : ''}`;
  }
  return `the cluster is unreachable (${errorText(err).split('\n')[0].slice(0, 200)})`;
}
