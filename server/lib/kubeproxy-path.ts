/**
 * kubectl (client-go) never sends a kubeconfig's credentials to a plain-http server: it applies the user's
 * username/password, token or exec plugin only when the transport is TLS. A console reached over http (a laptop's
 * `npm start`, a `kubectl port-forward` without TLS) therefore gets its kubeconfig with the access token in the
 * server URL instead: `http://host/kubeproxy/t/<token>`, and kubectl appends its API paths to that. The auth plugin
 * reads the token from there, the proxy strips it, and the logger redacts it. Over https the token travels as HTTP
 * Basic as usual and the URL carries none.
 */
const PREFIX = '/kubeproxy/t/';
const TOKEN_IN_PATH = /^\/kubeproxy\/t\/([^/?#]+)/;

/** The access token a `/kubeproxy/t/<token>/...` URL carries, or null. */
export function kubeproxyPathToken(url: string): string | null {
  if (!url.startsWith(PREFIX)) return null;
  const m = TOKEN_IN_PATH.exec(url);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return null;
  }
}

/** The URL without its `/t/<token>` part: `/kubeproxy/t/abc/api/v1` → `/kubeproxy/api/v1`. */
export function stripKubeproxyPathToken(url: string): string {
  return url.startsWith(PREFIX) ? url.replace(TOKEN_IN_PATH, '/kubeproxy') : url;
}

/** The URL as logs may show it: `/kubeproxy/t/[redacted]/api/v1`. */
export function redactKubeproxyPathToken(url: string): string {
  return url.startsWith(PREFIX) ? url.replace(TOKEN_IN_PATH, `${PREFIX}[redacted]`) : url;
}
