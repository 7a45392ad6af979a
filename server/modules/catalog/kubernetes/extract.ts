import type { CommonScraper } from '../../../contracts/catalog.js';
import type { KubeObject } from '../../kubernetes/objects.js';
import { applyTransforms } from '../extract.js';
import type { ItemRef, ScrapedChange, ScrapedItem, ScrapedRelationship, ScrapeResult } from '../types.js';
import { analyzeKubernetes } from './analyzers.js';
import { DEFAULT_CLUSTER_NAME, parseBlock, type KubernetesBlock } from './block.js';
import { eventExcluded, eventSeverity, kindExcluded, objectExcluded } from './filters.js';
import { kubernetesHealth } from './health.js';
import { aliasOf, cleanObject, deploymentOfReplicaSet, maskSecret, parseTime, TYPE_PREFIX, type KubeItem } from './object.js';
import { KubeIndex, linksOf, refOf, templateLinks } from './relations.js';

export interface ExtractOptions {
  clusterName?: string;
  /** What the Cluster item's config says besides its name (e.g. the API server's version). */
  cluster?: Record<string, unknown>;
  /**
   * Every object known besides `objects` (a live watcher's caches): relations and parents are resolved against them,
   * but only `objects` become items. A full scrape passes nothing.
   */
  lookup?: Iterable<KubeObject>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The Cluster item every object hangs under (the reference's `Kubernetes::Cluster`). */
export function clusterRef(clusterName: string): ItemRef {
  return { type: `${TYPE_PREFIX}Cluster`, externalId: aliasOf('Cluster', '', clusterName) };
}

/** Labels as the reference keeps them: `*-hash` keys (pod-template-hash, controller-revision-hash) change per rollout. */
function keptLabels(labels: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!labels) return undefined;
  return Object.fromEntries(Object.entries(labels).filter(([k]) => !k.endsWith('-hash')));
}

/** The nearest parent: the first owner, else the Namespace, else the Cluster (a ReplicaSet left out: its Deployment). */
function parentOf(o: KubeItem, block: KubernetesBlock, index: KubeIndex, cluster: ItemRef): ItemRef {
  const owner = o.metadata.ownerReferences?.[0];
  const ns = o.metadata.namespace;
  if (owner) {
    if (index.byUid.has(owner.uid)) return { type: TYPE_PREFIX + owner.kind, externalId: owner.uid };
    if (owner.kind === 'ReplicaSet' && kindExcluded(block, 'ReplicaSet')) {
      const deploy = index.named('Deployment', ns, deploymentOfReplicaSet(owner.name));
      if (deploy) return refOf(deploy);
    }
  }
  if (ns && o.kind !== 'Namespace') {
    const nsObj = index.named('Namespace', undefined, ns);
    return nsObj ? refOf(nsObj) : { type: `${TYPE_PREFIX}Namespace`, externalId: aliasOf('Namespace', '', ns) };
  }
  return cluster;
}

function itemOf(o: KubeItem, block: KubernetesBlock, index: KubeIndex, cluster: ItemRef, clusterName: string): ScrapedItem {
  const kind = o.kind ?? '';
  const { name = '', namespace, uid = '' } = o.metadata;
  let config = cleanObject(o);
  if (kind === 'Secret') config = maskSecret(config);
  let judged: ReturnType<typeof kubernetesHealth> | null = null;
  try {
    judged = kubernetesHealth(o);
  } catch {
    judged = null; // a judge that cannot read an odd object leaves its health unknown
  }
  const status = isRecord(o.status) ? o.status : {};
  // the reference treats an evicted Pod as deleted: it never runs again
  const evicted = kind === 'Pod' && status.reason === 'Evicted';
  return {
    externalId: uid,
    aliases: [aliasOf(kind, namespace, name)],
    name,
    type: TYPE_PREFIX + kind,
    configClass: kind,
    config,
    labels: keptLabels(o.metadata.labels),
    tags: namespace ? { cluster: clusterName, namespace } : { cluster: clusterName },
    health: judged?.health,
    status: judged?.status || undefined,
    ready: judged?.ready,
    description: judged?.message,
    parent: parentOf(o, block, index, cluster),
    createdAt: parseTime(o.metadata.creationTimestamp),
    ...(evicted ? { deletedAt: parseTime(status.startTime) ?? new Date(), deleteReason: 'Evicted' } : {}),
  };
}

/** The reference's change source: `kubernetes/component=kubelet,host=node-1` (keys sorted). */
function eventSource(e: Record<string, unknown>): string {
  const src = isRecord(e.source) ? e.source : {};
  const pairs = Object.entries(src).filter(([, v]) => typeof v === 'string' && v).map(([k, v]) => `${k}=${v as string}`).sort();
  if (!pairs.length && str(e.reportingComponent)) pairs.push(`component=${e.reportingComponent as string}`);
  return `kubernetes/${pairs.join(',')}`;
}

function changeOf(ev: KubeItem, block: KubernetesBlock, index: KubeIndex): ScrapedChange | null {
  const e = ev as Record<string, unknown>;
  const involved = isRecord(e.involvedObject) ? e.involvedObject : isRecord(e.regarding) ? e.regarding : null;
  const kind = str(involved?.kind);
  const name = str(involved?.name);
  if (!involved || !kind || !name) return null;
  const namespace = str(involved.namespace);
  const reason = str(e.reason) ?? 'Event';
  if (eventExcluded(block, name, namespace, reason)) return null;
  const target = (str(involved.uid) && index.byUid.get(involved.uid as string)) || index.named(kind, namespace, name);
  if (objectExcluded(block, kind, name, namespace, target?.metadata.labels)) return null;
  const item: ItemRef = target ? refOf(target) : str(involved.uid)
    ? { type: TYPE_PREFIX + kind, externalId: involved.uid as string }
    : { type: TYPE_PREFIX + kind, externalId: aliasOf(kind, namespace, name) };
  const series = isRecord(e.series) ? e.series : {};
  const count = typeof e.count === 'number' ? e.count : typeof series.count === 'number' ? series.count : 1;
  const meta = { ...ev.metadata } as Record<string, unknown>;
  delete meta.managedFields;
  const details: Record<string, unknown> = { ...e, metadata: meta };
  delete details.involvedObject;
  const created = parseTime(ev.metadata.creationTimestamp);
  return {
    item,
    externalChangeId: ev.metadata.uid,
    changeType: reason,
    severity: eventSeverity(block, reason, str(e.type)),
    source: eventSource(e),
    summary: str(e.message),
    details,
    createdAt: parseTime(e.lastTimestamp) ?? parseTime(series.lastObservedTime) ?? parseTime(e.eventTime) ?? created,
    firstObserved: parseTime(e.firstTimestamp) ?? parseTime(e.eventTime) ?? created,
    count,
  };
}

/**
 * A kubernetes block's objects and Events as catalog items, relationships, changes and insights. Pure: no I/O, so a
 * recorded cluster can be played through it (the demo) and a live watch can extract one object against its caches.
 *
 * Items: `Kubernetes::<Kind>` with the uid as external id (alias `Kubernetes/<Kind>/<namespace>/<name>`), tags
 * cluster/namespace, health from kubernetesHealth, volatile fields dropped, Secrets masked; one `Kubernetes::Cluster`
 * item; parents Cluster → Namespace → owner. Events become changes (a repeat of one uid raises its count).
 */
export function extractKubernetes(
  objects: KubeObject[], events: KubeObject[], blockIn: Record<string, unknown> | KubernetesBlock, opts: ExtractOptions = {},
): ScrapeResult {
  const result: ScrapeResult = { items: [], changes: [], analysis: [], relationships: [], errors: [], complete: true };
  let block: KubernetesBlock;
  try {
    block = parseBlock(blockIn as Record<string, unknown>);
  } catch (err) {
    return { ...result, errors: [`kubernetes: ${errText(err)}`], complete: false };
  }
  const clusterName = opts.clusterName || block.clusterName || DEFAULT_CLUSTER_NAME;
  const cluster = clusterRef(clusterName);
  const keep = (o: KubeObject): o is KubeItem => {
    const m = o.metadata;
    return !!(o.kind && o.kind !== 'Event' && m?.uid && m.name) && !objectExcluded(block, o.kind, m.name, m.namespace, m.labels);
  };
  const emitted = objects.filter(keep);
  const known = opts.lookup ? [...[...opts.lookup].filter(keep), ...emitted] : emitted;
  const index = new KubeIndex(known);

  result.items.push({
    externalId: cluster.externalId, name: clusterName, type: cluster.type, configClass: 'Cluster',
    config: { name: clusterName, ...(opts.cluster ?? {}) }, tags: { cluster: clusterName },
  });
  const seen = new Set<string>();
  const addLink = (r: ScrapedRelationship) => {
    const key = `${r.from.type}|${r.from.externalId}|${r.to.type}|${r.to.externalId}|${r.relation}`;
    if (seen.has(key)) return;
    seen.add(key);
    result.relationships.push(r);
  };
  for (const o of emitted) {
    try {
      result.items.push(itemOf(o, block, index, cluster, clusterName));
      for (const r of linksOf(o, index)) addLink(r);
    } catch (err) {
      result.errors.push(`${o.kind}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}: ${errText(err)}`);
      continue;
    }
    try {
      for (const r of templateLinks(o, block, index)) addLink(r);
    } catch (err) {
      result.errors.push(`relationships: ${o.kind}/${o.metadata.name}: ${errText(err)}`);
    }
  }
  for (const ev of events) {
    if (!ev.metadata?.uid) continue;
    const change = changeOf(ev as KubeItem, block, index);
    if (change) result.changes.push(change);
  }
  // the common transforms (exclude, mask, relationship, changes mapping/exclude) over what the objects became
  const t = applyTransforms(block as CommonScraper, result.items, result.changes);
  result.items = t.items;
  result.changes = t.changes;
  for (const r of t.relationships) addLink(r);
  result.errors.push(...t.errors);
  try {
    result.analysis = analyzeKubernetes(emitted);
    result.analyzedTypes = [...new Set(emitted.map((o) => TYPE_PREFIX + o.kind))];
  } catch (err) {
    result.errors.push(`analyzers: ${errText(err)}`);
  }
  return result;
}
