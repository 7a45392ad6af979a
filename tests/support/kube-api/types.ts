import type { JsonObject } from './patch.js';

export interface ObjectMeta {
  name: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

/** One served group/version/resource. Several versions of a CRD share one storage key (no conversion). */
export interface ResourceDef {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** `status` subresource: main-resource writes keep the stored status, /status writes change only status. */
  statusSubresource: boolean;
  /** metadata.generation is kept and bumped on changes outside metadata and status. */
  generation: boolean;
  /** PUT without metadata.resourceVersion is allowed (built-ins) or a 422 (custom resources). */
  unconditionalUpdate: boolean;
  /** openAPIV3Schema of a custom resource version; built-in kinds have none (any fields accepted). */
  schema?: JsonObject;
  printerColumns: PrinterColumn[];
  /** verbs listed in discovery when not the usual eight (virtual resources such as access reviews) */
  verbs?: string[];
  /** connect subresources served as upgraded streams (`pods/exec`, `pods/attach`), verbs create and get. */
  connect?: string[];
  /** name of the CRD that registered this resource. */
  crd?: string;
}

export interface Identity {
  user: string;
  groups: string[];
  /** the admin identity skips authorisation entirely */
  admin?: boolean;
}

export interface ImpersonationRecord {
  method: string;
  path: string;
  /** the query string, `?` included ('' when none) */
  query: string;
  user: string;
  groups: string[];
  /** who presented the token (the console's service account) */
  authenticatedAs: string;
  /** the status code the request was answered with */
  status?: number;
}

export const storageKey = (def: Pick<ResourceDef, 'group' | 'plural'>) => `${def.group}/${def.plural}`;
export const gvString = (group: string, version: string) => (group ? `${group}/${version}` : version);

/** What one exec, attach or port-forward session ran (tests read `api.execs`). */
export interface ExecRecord {
  kind: 'exec' | 'attach' | 'portforward';
  namespace: string;
  pod: string;
  container: string;
  command: string[];
  protocol: string;
  stdin: boolean;
  tty: boolean;
  /** the identity the request acted as (after impersonation) */
  user: string;
  groups: string[];
  /** set when the session ended: its exit code (-1 when the client went away first) */
  exitCode?: number;
  /** resize messages received (tty), as sent: kubectl `{"Width","Height"}`, client-node `{"width","height"}` (Go reads either) */
  resizes: Array<Record<string, number>>;
  /** port-forward: the port of each forwarded connection, in order */
  ports?: number[];
}
