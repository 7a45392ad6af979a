/**
 * `connection://<namespace>/<name>` (or `connection://<name>`), the reference's way for a check, a responder or a
 * notification to name a row of `connections` instead of repeating its url and credentials.
 */

export const CONNECTION_SCHEME = 'connection://';

/** The columns of a `connections` row that say how to reach and sign in to it (secrets included: never returned or logged). */
export interface ConnectionTarget {
  id: string;
  name: string;
  namespace: string;
  type: string;
  url: string | null;
  username: string | null;
  password: string | null;
  insecure_tls: boolean | null;
}

export interface ConnectionRef {
  /** The first of two segments: a namespace (or, in the reference's older form, a connection type); null for one. */
  namespace: string | null;
  name: string;
}

/** Whether `v` is a `connection://` reference (a plain URL in a `connection` field is not). */
export function isConnectionRef(v: unknown): v is string {
  return typeof v === 'string' && v.trim().toLowerCase().startsWith(CONNECTION_SCHEME);
}

/**
 * The segments of `connection://ns/name`, `connection://name`, or the same without the scheme. Null when a segment
 * is empty or there are more than two (Kubernetes names have no `/`).
 */
export function parseConnectionRef(ref: string): ConnectionRef | null {
  const s = ref.trim();
  const bare = s.toLowerCase().startsWith(CONNECTION_SCHEME) ? s.slice(CONNECTION_SCHEME.length) : s;
  const parts = bare.split('/');
  if (parts.length > 2 || parts.some((p) => !p.trim())) return null;
  return parts.length === 2 ? { namespace: parts[0].trim(), name: parts[1].trim() } : { namespace: null, name: parts[0].trim() };
}
