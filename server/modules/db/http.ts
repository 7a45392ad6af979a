import type { Action, Resource, Role } from '../../contracts/rbac.js';

/** What the service needs from an HTTP request; routes.ts builds it, tests of the service could too. */
export interface DbRequest {
  method: string;
  /** Relation or function name from the path. */
  target: string;
  /** Raw query string (after `?`), decoded by the parser. */
  query: string;
  prefer?: string | string[];
  range?: string;
  accept?: string;
  body?: unknown;
  /** The signed-in person: writes and volatile functions run with it as the transaction's actor (./actor.ts). */
  actor?: string;
  /** The caller's roles: an admin may name another person as created_by; writers act in the cluster as them. */
  roles?: readonly Role[];
  can(resource: Resource, action: Action): boolean;
}

/** A ready-to-send response: the body is JSON text produced by PostgreSQL (or null for no body). */
export interface DbResponse {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

export const JSON_TYPE = 'application/json; charset=utf-8';
export const OBJECT_TYPE = 'application/vnd.pgrst.object+json; charset=utf-8';
