import type { KubeReader } from './client.js';
import type { KubeItem } from './object.js';

/** One listable kind of the cluster, as discovery describes it. */
export interface KindInfo {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export const apiVersionOf = (k: Pick<KindInfo, 'group' | 'version'>) => (k.group ? `${k.group}/${k.version}` : k.version);

/** `/api/v1/pods`, `/apis/apps/v1/namespaces/x/deployments`. */
export function collectionPath(k: Pick<KindInfo, 'group' | 'version' | 'plural' | 'namespaced'>, namespace?: string | null): string {
  const root = k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`;
  return k.namespaced && namespace ? `${root}/namespaces/${encodeURIComponent(namespace)}/${k.plural}` : `${root}/${k.plural}`;
}

interface ResourceList {
  resources?: Array<{ name: string; kind: string; namespaced: boolean; verbs?: string[] }>;
}
interface GroupList {
  groups?: Array<{ name: string; preferredVersion?: { groupVersion: string; version: string }; versions?: Array<{ version: string }> }>;
}

/**
 * Kinds never scraped as items: Events are changes (listed on their own); the rest are virtual, deprecated or
 * duplicates of another group's kind (events.k8s.io Events, metrics).
 */
const NOT_ITEMS = new Set(['Event', 'ComponentStatus', 'Binding', 'TokenReview', 'SelfSubjectAccessReview', 'SubjectAccessReview',
  'LocalSubjectAccessReview', 'SelfSubjectRulesReview', 'SelfSubjectReview']);

/**
 * Every kind the cluster lets a client list: core v1 and each group's preferred version (`/api`, `/apis`), without
 * subresources. A group whose discovery fails is an error; the others are still returned.
 */
export async function discoverKinds(reader: KubeReader): Promise<{ kinds: KindInfo[]; errors: string[] }> {
  const errors: string[] = [];
  const versions: Array<{ group: string; version: string }> = [{ group: '', version: 'v1' }];
  const groups = await reader.get<GroupList>('/apis');
  for (const g of groups.groups ?? []) {
    const v = g.preferredVersion?.version ?? g.versions?.[0]?.version;
    if (v) versions.push({ group: g.name, version: v });
  }
  const kinds: KindInfo[] = [];
  const seen = new Set<string>();
  await Promise.all(versions.map(async ({ group, version }) => {
    try {
      const list = await reader.get<ResourceList>(group ? `/apis/${group}/${version}` : `/api/${version}`);
      for (const r of list.resources ?? []) {
        if (r.name.includes('/') || !(r.verbs ?? []).includes('list') || NOT_ITEMS.has(r.kind)) continue;
        const key = `${group}/${r.kind}`;
        if (seen.has(key)) continue;
        seen.add(key);
        kinds.push({ group, version, kind: r.kind, plural: r.name, namespaced: r.namespaced });
      }
    } catch (err) {
      errors.push(`discovery of ${group || 'core'}/${version}: ${(err as Error).message}`);
    }
  }));
  kinds.sort((a, b) => (a.group + a.kind).localeCompare(b.group + b.kind));
  return { kinds, errors };
}

export interface ListOptions {
  namespace?: string | null;
  labelSelector?: string;
  fieldSelector?: string;
  /** Objects per page (`limit` + `continue`), so no answer holds a whole large collection. */
  pageSize?: number;
}

/** Lists one kind in pages; list items carry no kind or apiVersion, so both are set on each object. */
export async function listKind(reader: KubeReader, k: KindInfo, opts: ListOptions = {}): Promise<KubeItem[]> {
  const out: KubeItem[] = [];
  const apiVersion = apiVersionOf(k);
  let cont: string | undefined;
  do {
    const q = new URLSearchParams({ limit: String(opts.pageSize ?? 500) });
    if (cont) q.set('continue', cont);
    if (opts.labelSelector) q.set('labelSelector', opts.labelSelector);
    if (opts.fieldSelector) q.set('fieldSelector', opts.fieldSelector);
    const page = await reader.get<{ items?: KubeItem[]; metadata?: { continue?: string } }>(`${collectionPath(k, opts.namespace)}?${q}`);
    for (const item of page.items ?? []) out.push({ apiVersion, kind: k.kind, ...item });
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return out;
}
