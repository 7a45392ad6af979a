import { stringify } from 'yaml';

/** What a kubeconfig for kubectl through the console is made of. */
export interface KubeconfigInput {
  /** The console's public URL (PUBLIC_URL), without a trailing slash. */
  publicUrl: string;
  /** The access token kubectl presents (as HTTP Basic `token:<token>`). */
  token: string;
}

/** The public URL's host name, made safe for a file and a kubeconfig entry name (`ops.example.com`, `localhost`). */
export function kubeconfigHost(publicUrl: string): string {
  return new URL(publicUrl).hostname.replace(/^\[|\]$/g, '').replace(/[^\w.-]/g, '_') || 'console';
}

/** The attachment's file name: `<host>-kubeconfig.yaml` (spec 000: "The file name derives from the backend host"). */
export function kubeconfigFileName(publicUrl: string): string {
  return `${kubeconfigHost(publicUrl)}-kubeconfig.yaml`;
}

/**
 * A kubeconfig whose one cluster is `<public url>/kubeproxy` and whose user authenticates with HTTP Basic
 * `token:<access token>`, as the reference system's (the console's auth plugin accepts Basic `token:` and Bearer).
 *
 * Choices where the reference is silent:
 * - Cluster, user and context are named after the host (`ops-console-<host>`), not the reference's `default` /
 *   `default-user`, so the file can be merged into `~/.kube/config` (KUBECONFIG=a:b) beside other clusters without
 *   clobbering their entries.
 * - `insecure-skip-tls-verify: true` only when the public URL is plain http. kubectl (client-go) talks to an http
 *   server without it, and ignores it there (no TLS to verify), but @kubernetes/client-node 1.x refuses an http
 *   server unless it is set ("HTTP protocol is not allowed when skipTLSVerify is not set"), so with it the same
 *   file works for both. An https public URL keeps certificate verification on: the console's ingress certificate
 *   is meant to be verified, and turning that off would hand the token to anyone in the middle.
 * - Over plain http the token is also in the server URL (`/kubeproxy/t/<token>`): kubectl (client-go) applies a
 *   kubeconfig's credentials only over TLS, so without it kubectl would reach the proxy unauthenticated (401). See
 *   server/lib/kubeproxy-path.ts; the logs redact it.
 */
export function buildKubeconfig({ publicUrl, token }: KubeconfigInput): string {
  const url = new URL(publicUrl);
  const name = `ops-console-${kubeconfigHost(publicUrl)}`;
  const plain = url.protocol === 'http:';
  const server = `${publicUrl.replace(/\/+$/, '')}/kubeproxy${plain ? `/t/${encodeURIComponent(token)}` : ''}`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server, ...(plain && { 'insecure-skip-tls-verify': true }) } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
    users: [{ name, user: { username: 'token', password: token } }],
    preferences: {},
  });
}
