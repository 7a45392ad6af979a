import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type pg from 'pg';
import type { CanaryResponse } from '../../contracts/health.js';
import type { SourceLink } from '../../contracts/kubernetes.js';
import { ApiError, BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { getCanary, liveChecksOf } from '../health/queries.js';
import type { CanaryChange } from '../health/service.js';
import { SpecError, validateCanarySpec } from '../health/spec.js';
import type { Role } from '../../contracts/rbac.js';
import type { ClusterConnection } from './cluster.js';
import { sameEditedContent } from './edited-since.js';
import { apiVersionOf, kindByKind, type KindDef } from './kinds.js';
import { errorText, newerVersion, statusOf, type KubeObject } from './objects.js';
import { kubeIdentityFor } from './proxy.js';
import { mergePatchBetween } from '../../lib/merge-patch.js';
import { objectByRow, type LedgerRow } from './store.js';

const CANARY = kindByKind('Canary')!;

export interface CanaryEditDeps {
  db: pg.Pool;
  cluster: ClusterConnection | null;
  /** The informers' copy of a CR, when they have it (saves a GET before a patch). */
  cached(kind: string, namespace: string, name: string): KubeObject | undefined;
  /** The resourceVersion since which the cached CR at `resourceVersion` holds its spec, labels and annotations
   *  (KubeSync.editedSince); without it, an edit counts only the exact version the user saw as current. */
  editedSince?(kind: string, namespace: string, name: string, resourceVersion: string): string | undefined;
  /** How long an edit waits for the informer to bring the row up to the patched version, or up to the version that
   *  caused a 409, before answering. */
  settleMs?: number;
}

// moved to server/lib (the catalog's diff changes use it too); re-exported for the callers that import it here
export { mergePatchBetween };

/** The source-link fields of a row (contract SourceLink) from its kubernetes_objects row, if any. */
export function sourceLinkOf(source: string | null, ledger: LedgerRow | undefined, kind: KindDef = CANARY): SourceLink {
  if (!ledger || ledger.deleted_at) {
    return { source, managed_by: null, source_link: null, read_only: false, kubernetes: null };
  }
  return {
    source,
    managed_by: ledger.managed_by,
    source_link: ledger.source_link ?? `Kubernetes ${kind.kind} ${ledger.namespace}/${ledger.name}`,
    read_only: ledger.managed_by !== null,
    kubernetes: {
      kind: kind.kind, apiVersion: apiVersionOf(kind), namespace: ledger.namespace, name: ledger.name, uid: ledger.uid,
      resource_version: ledger.resource_version, generation: ledger.generation === null ? null : Number(ledger.generation),
      last_error: ledger.last_error,
    },
  };
}

function refuseGitOps(ledger: LedgerRow, kind: KindDef): void {
  if (ledger.managed_by) {
    throw new ForbiddenError(
      `Linked to ${ledger.source_link}: the ${kind.kind} ${ledger.namespace}/${ledger.name} is managed by GitOps and read-only here; change it in its source repository`,
      { managed_by: ledger.managed_by, source_link: ledger.source_link },
    );
  }
}

/**
 * Request options that act as the caller's cluster identity (the writer for admins and editors, the reader
 * otherwise), as /kubeproxy does: a console edit is the user's edit, so cluster RBAC applies to it (the chart lets
 * the console's own service account watch, patch and write status, but only the writer may delete).
 */
function actingAs(roles: readonly Role[], contentType?: string) {
  const who = kubeIdentityFor(roles);
  let opts = setHeaderOptions('Impersonate-User', who.user);
  for (const g of who.groups) opts = setHeaderOptions('Impersonate-Group', g, opts);
  return contentType ? setHeaderOptions('Content-Type', contentType, opts) : opts;
}

/** An API server that does not answer within this long gets the caller a 504 rather than a hung request. */
const API_TIMEOUT_MS = 15_000;

function timely<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ApiError(504, 'kubernetes_timeout', 'the Kubernetes API server did not answer in time')), API_TIMEOUT_MS);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** An API server refusal, as the console's own error. */
function apiError(err: unknown, what: string, sentVersion?: string): never {
  if (err instanceof ApiError) throw err;
  const status = statusOf(err);
  const text = errorText(err);
  if (status === 409) {
    throw new ConflictError(
      `${what} was changed in the cluster after you loaded it${sentVersion ? ` (you edited resourceVersion ${sentVersion})` : ''}; reload it and apply your edit again`,
      { kubernetes: text },
    );
  }
  if (status === 404) throw new NotFoundError(what);
  if (status === 400 || status === 422) throw new BadRequestError(`the API server refused ${what}: ${text}`);
  if (status === 403) throw new ForbiddenError(`the cluster refused to let you change ${what}: ${text}`);
  throw new ApiError(502, 'kubernetes_unavailable', `could not reach the Kubernetes API server: ${text}`);
}

/** What a CR edit sets: name and namespace must stay those of the CR; labels left out are left as they are. */
export interface CrChange {
  name: string;
  namespace: string;
  labels?: Record<string, string> | null;
  spec: Record<string, unknown>;
}

/**
 * Console edits of rows that come from custom resources, for any kind of the registry: the CR is the source of truth,
 * so an edit patches the CR (never only the row) as the caller's cluster identity and the informer then updates the
 * row; a delete deletes the CR; a GitOps-managed CR is read-only. Each function answers false when the row is not
 * CR-sourced, so the caller's module writes the row itself.
 */
export function crEdits(deps: CanaryEditDeps) {
  const { db } = deps;
  const api = deps.cluster ? deps.cluster.kc.makeApiClient(CustomObjectsApi) : null;
  const settleMs = deps.settleMs ?? 3_000;

  async function liveLedger(kind: KindDef, id: string): Promise<LedgerRow | undefined> {
    const l = await objectByRow(db, kind.table, id);
    return l && !l.deleted_at ? l : undefined;
  }

  /** Waits (briefly) until the informer wrote `version` or later, so the answer shows the edit. */
  async function settle(kind: KindDef, id: string, done: (l: LedgerRow | undefined) => boolean): Promise<void> {
    const until = Date.now() + settleMs;
    while (Date.now() < until) {
      if (done(await objectByRow(db, kind.table, id))) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  function requireApi(kind: KindDef, ledger: LedgerRow): CustomObjectsApi {
    if (!api) {
      throw new ConflictError(`the ${kind.kind} ${ledger.namespace}/${ledger.name} comes from Kubernetes and the console has no cluster connection; edit it in the cluster`);
    }
    return api;
  }

  return {
    /** The live ledger row of a CR-sourced row (undefined for any other row). */
    ledgerOf: liveLedger,

    /** The source-link fields for a row's detail. */
    async link(kind: KindDef, id: string, source: string | null): Promise<SourceLink> {
      return sourceLinkOf(source, await objectByRow(db, kind.table, id), kind);
    },

    /**
     * Patches the CR a row comes from to `next` (false when the row is not CR-sourced). `validate` judges the new
     * spec once the row is known to be CR-sourced and not GitOps-managed; `version` is the resourceVersion the caller
     * saw (the one the console last saw when absent), so an edit of a CR whose spec, labels or annotations changed
     * since is a 409 (a status write since is not).
     */
    async edit(kind: KindDef, id: string, next: (ledger: LedgerRow) => Promise<CrChange>, version: string | undefined,
      roles: readonly Role[]): Promise<boolean> {
      const ledger = await liveLedger(kind, id);
      if (!ledger) return false;
      refuseGitOps(ledger, kind);
      const client = requireApi(kind, ledger);
      const change = await next(ledger);
      if (change.name !== ledger.name || change.namespace !== ledger.namespace) {
        throw new BadRequestError(`the ${kind.kind} ${ledger.namespace}/${ledger.name} comes from Kubernetes: its name and namespace cannot change`);
      }
      version ??= ledger.resource_version ?? undefined;
      const what = `the ${kind.kind} ${ledger.namespace}/${ledger.name}`;
      const gvk = { group: kind.group, version: kind.version, plural: kind.plural, namespace: ledger.namespace, name: ledger.name };

      const get = () => timely(client.getNamespacedCustomObject(gvk)) as Promise<KubeObject>;
      let current = deps.cached(kind.kind, ledger.namespace, ledger.name);
      if (!current || current.metadata.uid !== ledger.uid) current = await get().catch((err) => apiError(err, what));
      // What the user must not overwrite unseen is what an edit sets: the spec (metadata.generation, which only spec
      // changes bump), labels and annotations. The resourceVersion moves with every status write too, the console's
      // own included (a canary's health every few seconds, observedGeneration after each change): sent as is, a user
      // who loaded, or reloaded after a 409, just before such a write got a 409 that no Reload could avoid. So the
      // user's version counts as current when no content changed since (`since` is no newer than it), and the patch
      // is then conditional on the version the diff is taken against: a change racing in before the patch is still a
      // 409 from the API server, retried only when it changed no content either.
      const rvNow = current.metadata.resourceVersion;
      const since = rvNow ? deps.editedSince?.(kind.kind, ledger.namespace, ledger.name, rvNow) : undefined;
      const sawCurrent = !!version && (version === rvNow
        || (!!since && newerVersion(since, version) === false && newerVersion(rvNow, version) === true));
      // a 409 answers once the console's row shows the CR as it is now, so Reload starts from the change that caused
      // it, not from a row the informer has yet to update
      const refuse = async (err: unknown): Promise<never> => {
        if (statusOf(err) === 409) {
          const latest = (await get().catch(() => undefined))?.metadata.resourceVersion;
          if (latest) await settle(kind, id, (l) => !l || l.resource_version === latest || newerVersion(l.resource_version, latest) === true);
        }
        return apiError(err, what, version);
      };
      const patchFrom = (base: KubeObject) => {
        const precondition = sawCurrent ? base.metadata.resourceVersion : version;
        const body = {
          metadata: {
            ...(precondition ? { resourceVersion: precondition } : {}),
            ...(change.labels !== undefined ? { labels: mergePatchBetween(base.metadata.labels ?? {}, change.labels ?? {}) } : {}),
          },
          spec: mergePatchBetween(base.spec ?? {}, change.spec),
        };
        return timely(client.patchNamespacedCustomObject(
          { ...gvk, body, fieldManager: 'ops-console' }, actingAs(roles, PatchStrategy.MergePatch),
        )) as Promise<KubeObject>;
      };

      let patched: KubeObject;
      for (let attempt = 1; ; attempt++) {
        try {
          patched = await patchFrom(current);
          break;
        } catch (err) {
          if (statusOf(err) !== 409 || !sawCurrent || attempt >= 3) return refuse(err);
          const fresh = await get().catch(() => undefined);
          if (!fresh || !sameEditedContent(fresh, current)) return refuse(err);
          current = fresh; // only its status moved: the same edit, conditional on the latest version
        }
      }
      const rv = patched.metadata.resourceVersion;
      await settle(kind, id, (l) => !!l && (l.resource_version === rv || newerVersion(l.resource_version, rv) === true));
      return true;
    },

    /** Deletes the CR a row comes from, as the caller (false when the row is not CR-sourced); the row follows. */
    async remove(kind: KindDef, id: string, roles: readonly Role[]): Promise<boolean> {
      const ledger = await liveLedger(kind, id);
      if (!ledger) return false;
      refuseGitOps(ledger, kind);
      const client = requireApi(kind, ledger);
      const what = `the ${kind.kind} ${ledger.namespace}/${ledger.name}`;
      try {
        await timely(client.deleteNamespacedCustomObject({
          group: kind.group, version: kind.version, plural: kind.plural, namespace: ledger.namespace, name: ledger.name,
          body: { preconditions: { uid: ledger.uid } },
        }, actingAs(roles)));
      } catch (err) {
        if (statusOf(err) !== 404) apiError(err, what); // already gone: its row follows
      }
      await settle(kind, id, (l) => !l || !!l.deleted_at);
      return true;
    },
  };
}

export type CrEdits = ReturnType<typeof crEdits>;

/** Canary edits (the health service's crEdits): the generic edits, the canary's spec rules, the canary as answer. */
export function canaryEdits(deps: CanaryEditDeps, edits: CrEdits = crEdits(deps)) {
  const { db } = deps;

  async function response(id: string): Promise<CanaryResponse & SourceLink> {
    const row = await getCanary(db, id);
    if (!row) throw new NotFoundError('canary', id);
    const ledger = await objectByRow(db, 'canaries', id);
    return { ...row, checks: await liveChecksOf(db, id), ...sourceLinkOf(row.source, ledger) };
  }

  return {
    /** The source-link fields for a canary's detail. */
    link: (id: string, source: string | null) => edits.link(CANARY, id, source),

    /**
     * An edit of a canary: undefined when the canary is not CR-sourced (the health service saves the row as usual),
     * else the CR is patched as the caller's cluster identity and the updated canary returned. `change` holds the
     * fields the caller sets (a PUT sets all; labels left out are left as they are).
     */
    async edit(id: string, change: CanaryChange, version: string | undefined, roles: readonly Role[]): Promise<(CanaryResponse & SourceLink) | undefined> {
      const done = await edits.edit(CANARY, id, async () => {
        const row = await getCanary(db, id);
        if (!row || row.deleted_at) throw new NotFoundError('canary', id);
        const next = {
          name: change.name ?? row.name, namespace: change.namespace ?? row.namespace, labels: change.labels, spec: change.spec ?? row.spec,
        };
        try {
          validateCanarySpec(next.spec);
        } catch (err) {
          if (err instanceof SpecError) {
            throw new BadRequestError(`invalid canary spec: ${err.message}`, Object.fromEntries(err.problems.map((p) => [p.path || 'spec', p.message])));
          }
          throw err;
        }
        return next;
      }, version, roles);
      return done ? response(id) : undefined;
    },

    /** DELETE of a canary: false when not CR-sourced, else the CR is deleted (and the row follows). */
    remove: (id: string, roles: readonly Role[]) => edits.remove(CANARY, id, roles),
  };
}

export type CanaryEdits = ReturnType<typeof canaryEdits>;
