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
import { apiVersionOf, kindByKind, type KindDef } from './kinds.js';
import { errorText, newerVersion, statusOf, type KubeObject } from './objects.js';
import { kubeIdentityFor } from './proxy.js';
import { objectByRow, type LedgerRow } from './store.js';

const CANARY = kindByKind('Canary')!;

export interface CanaryEditDeps {
  db: pg.Pool;
  cluster: ClusterConnection | null;
  /** The informers' copy of a CR, when they have it (saves a GET before a patch). */
  cached(kind: string, namespace: string, name: string): KubeObject | undefined;
  /** How long an edit waits for the informer to bring the row up to the patched version before answering. */
  settleMs?: number;
}

type Json = unknown;
const isObj = (v: Json): v is Record<string, Json> => !!v && typeof v === 'object' && !Array.isArray(v);

/** RFC 7386: the merge patch that turns `from` into `to` (removed keys become null; arrays are replaced whole). */
export function mergePatchBetween(from: Json, to: Json): Json {
  if (!isObj(from) || !isObj(to)) return to;
  const out: Record<string, Json> = {};
  for (const k of Object.keys(from)) if (!(k in to)) out[k] = null;
  for (const [k, v] of Object.entries(to)) {
    if (!(k in from)) out[k] = v;
    else if (JSON.stringify(from[k]) !== JSON.stringify(v)) out[k] = mergePatchBetween(from[k], v);
  }
  return out;
}

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

function refuseGitOps(ledger: LedgerRow): void {
  if (ledger.managed_by) {
    throw new ForbiddenError(
      `Linked to ${ledger.source_link}: the Canary ${ledger.namespace}/${ledger.name} is managed by GitOps and read-only here; change it in its source repository`,
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

/**
 * Console edits of canaries that come from Canary custom resources: the CR is the source of truth, so an edit patches
 * the CR (never only the row) and the informer then updates the row; a GitOps-managed CR is read-only.
 */
export function canaryEdits(deps: CanaryEditDeps) {
  const { db } = deps;
  const api = deps.cluster ? deps.cluster.kc.makeApiClient(CustomObjectsApi) : null;
  const settleMs = deps.settleMs ?? 3_000;

  async function liveLedger(id: string): Promise<LedgerRow | undefined> {
    const l = await objectByRow(db, 'canaries', id);
    return l && !l.deleted_at ? l : undefined;
  }

  /** Waits (briefly) until the informer wrote `version` or later, so the answer shows the edit. */
  async function settle(id: string, done: (l: LedgerRow | undefined) => boolean): Promise<void> {
    const until = Date.now() + settleMs;
    while (Date.now() < until) {
      if (done(await objectByRow(db, 'canaries', id))) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function response(id: string): Promise<CanaryResponse & SourceLink> {
    const row = await getCanary(db, id);
    if (!row) throw new NotFoundError('canary', id);
    const ledger = await objectByRow(db, 'canaries', id);
    return { ...row, checks: await liveChecksOf(db, id), ...sourceLinkOf(row.source, ledger) };
  }

  function requireApi(ledger: LedgerRow): CustomObjectsApi {
    if (!api) {
      throw new ConflictError(`the Canary ${ledger.namespace}/${ledger.name} comes from Kubernetes and the console has no cluster connection; edit it in the cluster`);
    }
    return api;
  }

  return {
    /** The source-link fields for a canary's detail. */
    async link(id: string, source: string | null): Promise<SourceLink> {
      return sourceLinkOf(source, await objectByRow(db, 'canaries', id));
    },

    /**
     * An edit of a canary: undefined when the canary is not CR-sourced (the health service saves the row as usual),
     * else the CR is patched as the caller's cluster identity and the updated canary returned. `change` holds the
     * fields the caller sets (a PUT sets all; labels left out are left as they are); `version` is the resourceVersion
     * the caller saw, so an edit of a CR that moved on since is a 409.
     */
    async edit(id: string, change: CanaryChange, version: string | undefined, roles: readonly Role[]): Promise<(CanaryResponse & SourceLink) | undefined> {
      const ledger = await liveLedger(id);
      if (!ledger) return undefined;
      refuseGitOps(ledger);
      const client = requireApi(ledger);
      const row = await getCanary(db, id);
      if (!row || row.deleted_at) throw new NotFoundError('canary', id);

      const next = {
        name: change.name ?? row.name, namespace: change.namespace ?? row.namespace, labels: change.labels, spec: change.spec ?? row.spec,
      };
      if (next.name !== ledger.name || next.namespace !== ledger.namespace) {
        throw new BadRequestError(`the Canary ${ledger.namespace}/${ledger.name} comes from Kubernetes: its name and namespace cannot change`);
      }
      try {
        validateCanarySpec(next.spec);
      } catch (err) {
        if (err instanceof SpecError) {
          throw new BadRequestError(`invalid canary spec: ${err.message}`, Object.fromEntries(err.problems.map((p) => [p.path || 'spec', p.message])));
        }
        throw err;
      }
      version ??= ledger.resource_version ?? undefined;
      const what = `the Canary ${ledger.namespace}/${ledger.name}`;
      const gvk = { group: CANARY.group, version: CANARY.version, plural: CANARY.plural, namespace: ledger.namespace, name: ledger.name };

      let current = deps.cached(CANARY.kind, ledger.namespace, ledger.name);
      if (!current || current.metadata.uid !== ledger.uid) {
        current = await timely(client.getNamespacedCustomObject(gvk)).catch((err) => apiError(err, what)) as KubeObject;
      }
      // The diff is taken against the latest copy; the resourceVersion sent is the one the user saw, so if the CR
      // moved on since, the API server answers 409 and nothing is overwritten.
      const patch: Record<string, unknown> = {
        metadata: {
          ...(version ? { resourceVersion: version } : {}),
          ...(next.labels !== undefined ? { labels: mergePatchBetween(current.metadata.labels ?? {}, next.labels ?? {}) } : {}),
        },
        spec: mergePatchBetween(current.spec ?? {}, next.spec),
      };
      const patched = await timely(client.patchNamespacedCustomObject(
        { ...gvk, body: patch, fieldManager: 'ops-console' }, actingAs(roles, PatchStrategy.MergePatch),
      )).catch((err) => apiError(err, what, version)) as KubeObject;
      const rv = patched.metadata.resourceVersion;
      await settle(id, (l) => !!l && (l.resource_version === rv || newerVersion(l.resource_version, rv) === true));
      return response(id);
    },

    /** DELETE of a canary: false when not CR-sourced, else the CR is deleted (and the row follows). */
    async remove(id: string, roles: readonly Role[]): Promise<boolean> {
      const ledger = await liveLedger(id);
      if (!ledger) return false;
      refuseGitOps(ledger);
      const client = requireApi(ledger);
      const what = `the Canary ${ledger.namespace}/${ledger.name}`;
      try {
        await timely(client.deleteNamespacedCustomObject({
          group: CANARY.group, version: CANARY.version, plural: CANARY.plural, namespace: ledger.namespace, name: ledger.name,
          body: { preconditions: { uid: ledger.uid } },
        }, actingAs(roles)));
      } catch (err) {
        if (statusOf(err) !== 404) apiError(err, what); // already gone: its row follows
      }
      await settle(id, (l) => !l || !!l.deleted_at);
      return true;
    },
  };
}

export type CanaryEdits = ReturnType<typeof canaryEdits>;
