import { z } from 'zod';

/**
 * The console's Kubernetes side, as the web sees it (imports zod only).
 *
 * - `GET /api/kubernetes/status` (any signed-in user): the cluster connection, the leader, each watched kind, and the
 *   custom resources that failed validation. The settings page is built on it.
 * - Rows reconciled from custom resources carry `source = 'KubernetesCRD'` and the CR's uid as their id. Their detail
 *   (e.g. `GET /api/canary/:id`) adds a `SourceLink`: who owns the row and whether the console may edit it.
 */

/** Where the console's credentials came from; null when it runs without Kubernetes. */
export const KubernetesSource = z.enum(['kubeconfig', 'in-cluster']);
export type KubernetesSource = z.infer<typeof KubernetesSource>;

/** One custom-resource kind and the state of its informer (list + watch) on this replica. */
export const KindStatus = z.object({
  kind: z.string(),
  group: z.string(),
  version: z.string(),
  plural: z.string(),
  /** The informer is started and its last list succeeded (false while it backs off after an error). */
  watching: z.boolean(),
  /** Live custom resources of this kind the console knows (kubernetes_objects rows, not deleted). */
  objects: z.number().int(),
  /** The last completed list (ISO time), null before the first. */
  lastSyncAt: z.string().nullable(),
  /** The last error of this kind's informer, cleared by the next successful list. */
  lastError: z.string().nullable(),
});
export type KindStatus = z.infer<typeof KindStatus>;

/** A custom resource whose spec did not validate: the error is also written to the CR's status. */
export const InvalidObject = z.object({
  kind: z.string(),
  namespace: z.string(),
  name: z.string(),
  error: z.string(),
  /** When the console saw it (ISO time). */
  at: z.string(),
});
export type InvalidObject = z.infer<typeof InvalidObject>;

/** `GET /api/kubernetes/status`. */
export const KubernetesStatus = z.object({
  connected: z.boolean(),
  source: KubernetesSource.nullable(),
  /** The API server's URL (no credentials), null without a connection. */
  server: z.string().nullable(),
  /**
   * Leader election (a coordination.k8s.io/v1 Lease): this replica's identity, whether it leads, and who holds the
   * Lease now (null when nobody does). Null without a connection: a lone process always leads.
   */
  leader: z.object({ identity: z.string(), isLeader: z.boolean(), holder: z.string().nullable() }).nullable(),
  kinds: z.array(KindStatus),
  /** The last connection-level error (e.g. the API server unreachable), null when all is well. */
  lastError: z.string().nullable(),
  invalid: z.array(InvalidObject),
});
export type KubernetesStatus = z.infer<typeof KubernetesStatus>;

/** GitOps tools whose labels or annotations make a custom resource read-only in the console. */
export const ManagedBy = z.enum(['flux', 'argo']);
export type ManagedBy = z.infer<typeof ManagedBy>;

/**
 * Where a row comes from, added to the detail of a resource reconciled from a custom resource (a canary's
 * `GET /api/canary/:id` today). The spec's source-link rule: a source starting with `kubernetes` shows a link.
 *
 * - `managed_by` null: the CR is edited through the console, which patches the CR (never only the row); send back
 *   `resource_version` with the edit so a change made meanwhile in the cluster answers 409 instead of being lost.
 * - `managed_by` flux/argo: read-only; edits and deletes answer 403 with `Linked to <source_link>`.
 */
export const SourceLink = z.object({
  source: z.string().nullable(),
  managed_by: ManagedBy.nullable(),
  /** What to show after "Linked to", e.g. `Flux kustomization flux-system/apps`, `Argo CD application guestbook`,
   *  or `Kubernetes Canary default/web` for a CR the console may edit. */
  source_link: z.string().nullable(),
  read_only: z.boolean(),
  kubernetes: z.object({
    kind: z.string(),
    apiVersion: z.string(),
    namespace: z.string(),
    name: z.string(),
    uid: z.string(),
    /** The CR's metadata.resourceVersion the console last saw: send it back with an edit. */
    resource_version: z.string().nullable(),
    generation: z.number().int().nullable(),
    /** The last validation or sync error of this CR, null when it reconciled. */
    last_error: z.string().nullable(),
  }).nullable(),
});
export type SourceLink = z.infer<typeof SourceLink>;

/**
 * Optional fields a console edit (PUT/PATCH `/api/canary/:id`) of a CR-sourced canary may carry: the resourceVersion
 * the user saw (flat `resource_version`, or `metadata.resourceVersion` in the CR-shaped body). Without it the
 * version the console last saw is used.
 */
export const EditPrecondition = z.object({
  resource_version: z.string().min(1).max(64).optional(),
  metadata: z.object({ resourceVersion: z.string().min(1).max(64).optional() }).passthrough().optional(),
}).passthrough();
export type EditPrecondition = z.infer<typeof EditPrecondition>;

/** The `source` value of rows reconciled from custom resources (reference: source enum `KubernetesCRD`). */
export const KUBERNETES_CRD_SOURCE = 'KubernetesCRD';
