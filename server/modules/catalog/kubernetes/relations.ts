import { celToText, evalCel } from '../../../lib/cel.js';
import type { ItemRef, ScrapedRelationship } from '../types.js';
import type { KubernetesBlock } from './block.js';
import { TYPE_PREFIX, type KubeItem } from './object.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export const refOf = (o: KubeItem): ItemRef => ({ type: TYPE_PREFIX + (o.kind ?? ''), externalId: o.metadata.uid ?? '' });
const nsKey = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace ?? ''}/${name}`;

/**
 * Lookups over every object the extractor knows (a full scrape's objects, or a live watcher's caches), so relations are
 * found from either end: a Pod finds the Services selecting it, a Service finds its Pods.
 */
export class KubeIndex {
  readonly byUid = new Map<string, KubeItem>();
  private readonly byName = new Map<string, KubeItem>();
  private readonly byKindNs = new Map<string, KubeItem[]>();
  private readonly childrenOf = new Map<string, KubeItem[]>();
  private readonly podsOnNode = new Map<string, KubeItem[]>();
  private readonly refs = new WeakMap<KubeItem, { pvcs: string[]; configMaps: string[] }>();
  /** `<kind>/<namespace>/<name>` → the Pods that mount or read it; built on first use. */
  private referencing: Map<string, KubeItem[]> | null = null;

  constructor(objects: Iterable<KubeItem>) {
    for (const o of objects) {
      const uid = o.metadata.uid;
      if (!uid || !o.kind || !o.metadata.name) continue;
      this.byUid.set(uid, o);
      this.byName.set(nsKey(o.kind, o.metadata.namespace, o.metadata.name), o);
      const k = `${o.kind}/${o.metadata.namespace ?? ''}`;
      (this.byKindNs.get(k) ?? this.byKindNs.set(k, []).get(k)!).push(o);
      for (const ref of o.metadata.ownerReferences ?? []) {
        (this.childrenOf.get(ref.uid) ?? this.childrenOf.set(ref.uid, []).get(ref.uid)!).push(o);
      }
      const node = o.kind === 'Pod' && isRecord(o.spec) ? str(o.spec.nodeName) : undefined;
      if (node) (this.podsOnNode.get(node) ?? this.podsOnNode.set(node, []).get(node)!).push(o);
    }
  }

  named(kind: string, namespace: string | undefined, name: string): KubeItem | undefined {
    return this.byName.get(nsKey(kind, namespace, name));
  }

  ofKind(kind: string, namespace: string | undefined): readonly KubeItem[] {
    return this.byKindNs.get(`${kind}/${namespace ?? ''}`) ?? [];
  }

  children(uid: string): readonly KubeItem[] {
    return this.childrenOf.get(uid) ?? [];
  }

  podsOn(node: string): readonly KubeItem[] {
    return this.podsOnNode.get(node) ?? [];
  }

  /** A Pod's PVCs and ConfigMaps, read once per Pod. */
  podRefs(pod: KubeItem): { pvcs: string[]; configMaps: string[] } {
    let r = this.refs.get(pod);
    if (!r) this.refs.set(pod, (r = podReferences(pod)));
    return r;
  }

  /** The Pods that mount or read a PVC or ConfigMap (one pass over the Pods, not one per ConfigMap). */
  podsReferencing(kind: 'PersistentVolumeClaim' | 'ConfigMap', namespace: string | undefined, name: string): readonly KubeItem[] {
    if (!this.referencing) {
      const m = new Map<string, KubeItem[]>();
      for (const pod of this.byUid.values()) {
        if (pod.kind !== 'Pod') continue;
        const r = this.podRefs(pod);
        const ns = pod.metadata.namespace ?? '';
        for (const [k, names] of [['PersistentVolumeClaim', r.pvcs], ['ConfigMap', r.configMaps]] as const) {
          for (const n of names) {
            const key = `${k}/${ns}/${n}`;
            (m.get(key) ?? m.set(key, []).get(key)!).push(pod);
          }
        }
      }
      this.referencing = m;
    }
    return this.referencing.get(`${kind}/${namespace ?? ''}/${name}`) ?? [];
  }

  all(): IterableIterator<KubeItem> {
    return this.byUid.values();
  }
}

const selects = (selector: Record<string, unknown>, labels: Record<string, string> | undefined) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

function serviceSelector(svc: KubeItem): Record<string, unknown> | null {
  const sel = isRecord(svc.spec) && isRecord(svc.spec.selector) ? svc.spec.selector : null;
  return sel && Object.keys(sel).length ? sel : null;
}

/** The Services an Ingress sends to (rules' paths and the default backend; `serviceName` of the old API too). */
function ingressServices(ing: KubeItem): string[] {
  const spec = isRecord(ing.spec) ? ing.spec : {};
  const backends = [spec.defaultBackend, spec.backend];
  for (const rule of arr(spec.rules)) {
    const http = isRecord(rule) && isRecord(rule.http) ? rule.http : {};
    for (const p of arr(http.paths)) if (isRecord(p)) backends.push(p.backend);
  }
  const names = backends.map((b) => (isRecord(b) ? str(isRecord(b.service) ? b.service.name : undefined) ?? str(b.serviceName) : undefined));
  return [...new Set(names.filter((n): n is string => !!n))];
}

/** The PersistentVolumeClaims and ConfigMaps a Pod mounts or reads its environment from. */
function podReferences(pod: KubeItem): { pvcs: string[]; configMaps: string[] } {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const pvcs = new Set<string>();
  const cms = new Set<string>();
  for (const v of arr(spec.volumes)) {
    if (!isRecord(v)) continue;
    const claim = isRecord(v.persistentVolumeClaim) ? str(v.persistentVolumeClaim.claimName) : undefined;
    if (claim) pvcs.add(claim);
    const cm = isRecord(v.configMap) ? str(v.configMap.name) : undefined;
    if (cm) cms.add(cm);
    for (const s of arr(isRecord(v.projected) ? v.projected.sources : [])) {
      const p = isRecord(s) && isRecord(s.configMap) ? str(s.configMap.name) : undefined;
      if (p) cms.add(p);
    }
  }
  for (const c of [...arr(spec.initContainers), ...arr(spec.containers)]) {
    if (!isRecord(c)) continue;
    for (const e of arr(c.envFrom)) {
      const n = isRecord(e) && isRecord(e.configMapRef) ? str(e.configMapRef.name) : undefined;
      if (n) cms.add(n);
    }
    for (const e of arr(c.env)) {
      const ref = isRecord(e) && isRecord(e.valueFrom) && isRecord(e.valueFrom.configMapKeyRef) ? str(e.valueFrom.configMapKeyRef.name) : undefined;
      if (ref) cms.add(ref);
    }
  }
  return { pvcs: [...pvcs], configMaps: [...cms] };
}

/**
 * Every relationship with `o` at one end, found through the index: `hard` from each owner (ownerReferences) to its
 * children, and the reference's soft relations NodePod, ServicePod (selector), IngressService,
 * PodPersistentVolumeClaim and PodConfigMap. Only objects the index holds are linked (an excluded kind has no item).
 */
export function linksOf(o: KubeItem, index: KubeIndex): ScrapedRelationship[] {
  const out: ScrapedRelationship[] = [];
  const ns = o.metadata.namespace;
  const self = refOf(o);
  const link = (from: KubeItem | undefined, to: KubeItem | undefined, relation: string) => {
    if (from && to && from.metadata.uid && to.metadata.uid) out.push({ from: refOf(from), to: refOf(to), relation });
  };
  for (const ref of o.metadata.ownerReferences ?? []) {
    if (index.byUid.has(ref.uid)) out.push({ from: { type: TYPE_PREFIX + ref.kind, externalId: ref.uid }, to: self, relation: 'hard' });
  }
  for (const child of index.children(self.externalId)) link(o, child, 'hard');
  switch (o.kind) {
    case 'Pod': {
      const node = isRecord(o.spec) ? str(o.spec.nodeName) : undefined;
      if (node) link(index.named('Node', undefined, node), o, 'NodePod');
      for (const svc of index.ofKind('Service', ns)) {
        const sel = serviceSelector(svc);
        if (sel && selects(sel, o.metadata.labels)) link(svc, o, 'ServicePod');
      }
      const { pvcs, configMaps } = index.podRefs(o);
      for (const n of pvcs) link(o, index.named('PersistentVolumeClaim', ns, n), 'PodPersistentVolumeClaim');
      for (const n of configMaps) link(o, index.named('ConfigMap', ns, n), 'PodConfigMap');
      break;
    }
    case 'Node':
      for (const pod of index.podsOn(o.metadata.name ?? '')) link(o, pod, 'NodePod');
      break;
    case 'Service': {
      const sel = serviceSelector(o);
      if (sel) for (const pod of index.ofKind('Pod', ns)) if (selects(sel, pod.metadata.labels)) link(o, pod, 'ServicePod');
      for (const ing of index.ofKind('Ingress', ns)) if (ingressServices(ing).includes(o.metadata.name ?? '')) link(ing, o, 'IngressService');
      break;
    }
    case 'Ingress':
      for (const n of ingressServices(o)) link(o, index.named('Service', ns, n), 'IngressService');
      break;
    case 'PersistentVolumeClaim':
    case 'ConfigMap':
      for (const pod of index.podsReferencing(o.kind, ns, o.metadata.name ?? '')) link(pod, o, `Pod${o.kind}`);
      break;
  }
  return out;
}

type Lookup = { value?: string; label?: string; expr?: string } | undefined;

function evalLookup(l: Lookup, o: KubeItem): string | undefined {
  if (!l) return undefined;
  if (l.value) return l.value;
  if (l.label) return o.metadata.labels?.[l.label] ?? '';
  if (l.expr) return celToText(evalCel(l.expr, { metadata: o.metadata, spec: isRecord(o.spec) ? o.spec : {} }));
  return undefined;
}

/**
 * The block's `relationships` templates for one object: each of kind, name and namespace is looked up (a static
 * value, a label, or a CEL expression over `metadata` and `spec`); a lookup that is set but yields nothing skips the
 * template, as the reference does. Every indexed object matching the result is linked to `o` (`<Kind><Kind>`).
 * Throws on a bad expression (the caller reports it as this object's error).
 */
export function templateLinks(o: KubeItem, block: KubernetesBlock, index: KubeIndex): ScrapedRelationship[] {
  const out: ScrapedRelationship[] = [];
  for (const t of block.relationships ?? []) {
    const kind = evalLookup(t.kind, o);
    const name = evalLookup(t.name, o);
    const namespace = evalLookup(t.namespace, o);
    if (kind === '' || name === '' || namespace === '') continue;
    if (kind === undefined && name === undefined && namespace === undefined) continue;
    // a kind and namespace narrow the search to one bucket (a scan of everything per object would be quadratic)
    const candidates = kind !== undefined && namespace !== undefined
      ? (name !== undefined ? [index.named(kind, namespace || undefined, name)].filter((x): x is KubeItem => !!x) : index.ofKind(kind, namespace || undefined))
      : index.all();
    for (const target of candidates) {
      if (target === o) continue;
      if (kind !== undefined && target.kind !== kind) continue;
      if (name !== undefined && target.metadata.name !== name) continue;
      if (namespace !== undefined && (target.metadata.namespace ?? '') !== namespace) continue;
      out.push({ from: refOf(target), to: refOf(o), relation: `${target.kind}${o.kind}` });
    }
  }
  return out;
}
