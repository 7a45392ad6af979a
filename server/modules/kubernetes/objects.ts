import { createHash } from 'node:crypto';
import type { ManagedBy } from '../../contracts/kubernetes.js';

/** The parts of a custom resource the console reads. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: Date;
  };
  spec?: unknown;
  status?: Record<string, unknown>;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The row id of a CR: its uid (the reference keeps the CR uid as the canary id). Kubernetes uids are UUIDs; anything
 * else (a hand-made test object) gets a stable UUID derived from it, so the mapping never changes.
 */
export function rowIdOf(uid: string): string {
  if (UUID_RE.test(uid)) return uid.toLowerCase();
  const h = createHash('sha256').update(`kubernetes-uid:${uid}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** `namespace/name`, the key of the informer caches and of the work queues. */
export function keyOf(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? ''}/${name ?? ''}`;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

export interface GitOpsLink {
  managedBy: ManagedBy;
  /** What follows "Linked to": `Flux kustomization flux-system/apps`, `Argo CD application guestbook`. */
  link: string;
}

/**
 * Who manages a CR through GitOps, from the labels and annotations the tools stamp on what they apply:
 * Flux kustomize-controller (`kustomize.toolkit.fluxcd.io/name` + `/namespace`), Flux helm-controller
 * (`helm.toolkit.fluxcd.io/name` + `/namespace`), Argo CD (annotation `argocd.argoproj.io/tracking-id`
 * `<app>:<group>/<kind>:<ns>/<name>`, label `argocd.argoproj.io/instance` or `app.kubernetes.io/instance` when Argo's
 * annotation is there too). Any other `*.toolkit.fluxcd.io/*` or `argocd.argoproj.io/*` key still makes the CR
 * GitOps-managed, with a generic link. Such a CR is read-only in the console: its source is in Git.
 */
export function gitOpsOf(meta: KubeObject['metadata']): GitOpsLink | null {
  const all: Record<string, string> = { ...(meta.annotations ?? {}), ...(meta.labels ?? {}) };
  const fluxNs = (kind: string) => all[`${kind}.toolkit.fluxcd.io/namespace`];
  const fluxName = (kind: string) => all[`${kind}.toolkit.fluxcd.io/name`];
  if (fluxName('kustomize')) {
    return { managedBy: 'flux', link: `Flux kustomization ${[fluxNs('kustomize'), fluxName('kustomize')].filter(Boolean).join('/')}` };
  }
  if (fluxName('helm')) {
    return { managedBy: 'flux', link: `Flux HelmRelease ${[fluxNs('helm'), fluxName('helm')].filter(Boolean).join('/')}` };
  }
  const tracking = all['argocd.argoproj.io/tracking-id'];
  if (tracking) return { managedBy: 'argo', link: `Argo CD application ${tracking.split(':')[0]}` };
  if (all['argocd.argoproj.io/instance']) return { managedBy: 'argo', link: `Argo CD application ${all['argocd.argoproj.io/instance']}` };
  const keys = Object.keys(all);
  if (keys.some((k) => /(^|\.)toolkit\.fluxcd\.io\//.test(k))) return { managedBy: 'flux', link: 'Flux' };
  if (keys.some((k) => k.startsWith('argocd.argoproj.io/'))) return { managedBy: 'argo', link: 'Argo CD' };
  return null;
}

/** Resource versions are opaque to clients, but etcd's (and the test server's) are integers: compare when both are. */
export function newerVersion(a: string | null | undefined, b: string | null | undefined): boolean | null {
  if (!a || !b || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return null;
  return BigInt(a) > BigInt(b);
}

/** Human text of an error from client-node (ApiException carries the Status body), fetch or anything else. */
export function errorText(err: unknown): string {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; body?: unknown; message?: unknown; statusCode?: unknown };
    let body = e.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        /* plain text */
      }
    }
    if (body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string') {
      return `${(body as { message: string }).message}${typeof e.code === 'number' ? ` (HTTP ${e.code})` : ''}`;
    }
    if (typeof e.message === 'string' && e.message) return e.message.slice(0, 500);
  }
  return String(err).slice(0, 500);
}

/** The HTTP status of a client-node error (ApiException.code, or the watch's statusCode), if any. */
export function statusOf(err: unknown): number | null {
  if (!err || typeof err !== 'object') return null;
  const e = err as { code?: unknown; statusCode?: unknown };
  if (typeof e.code === 'number') return e.code;
  if (typeof e.statusCode === 'number') return e.statusCode;
  return null;
}

/** `p`, or a rejection after `ms`: client-node's requests carry no timeout of their own. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer from the API server within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
