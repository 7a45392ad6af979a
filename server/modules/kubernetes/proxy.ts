import { createHash } from 'node:crypto';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Role } from '../../contracts/rbac.js';
import { can } from '../../contracts/rbac.js';
import type { ClusterConnection } from './cluster.js';

/** A cluster identity the console impersonates; the Helm chart binds these names to ClusterRoles. */
export interface KubeIdentity {
  user: string;
  groups: string[];
}

/** Admins and editors (kubernetes-proxy write) act in the cluster as the writer. */
export const KUBE_WRITER: KubeIdentity = { user: 'ops-console-writer', groups: ['ops-console:writers'] };
/** Every other role acts as the reader. */
export const KUBE_READER: KubeIdentity = { user: 'ops-console-reader', groups: ['ops-console:readers'] };

/** The identity a caller with these console roles gets in the cluster. */
export function kubeIdentityFor(roles: readonly Role[]): KubeIdentity {
  return can(roles, 'kubernetes-proxy', 'write') ? KUBE_WRITER : KUBE_READER;
}

/** A Kubernetes `Status` object: kubectl prints its message ("Error from server (Forbidden): ..."). */
export function kubeStatus(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

// Request headers passed on to the API server. An allow-list rather than a deny-list: the caller's Authorization and
// cookies, every Impersonate-* header (User, Group, Uid, Extra-*: a caller must not choose who it acts as) and
// anything else a future client invents stay behind.
export const FORWARDED_REQUEST_HEADERS = [
  'accept', 'accept-encoding', 'accept-language', 'content-type', 'content-length', 'content-encoding',
  'transfer-encoding', 'user-agent', 'kubectl-command', 'kubectl-session', 'if-none-match', 'if-modified-since',
];

// Hop-by-hop response headers (RFC 9110 7.6.1) are for one connection only; Node frames the reply itself.
export const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding',
  'upgrade', 'set-cookie',
]);

/** A client that does not get a TCP (and TLS) connection to the API server within this long gets a 502. */
const CONNECT_TIMEOUT_MS = 10_000;

/** Where a proxied request goes: the path (with its query) under the API server's base URL. */
export function upstreamPath(base: URL, suffix: string): string {
  const prefix = base.pathname.replace(/\/+$/, '');
  return `${prefix}${suffix.startsWith('/') ? suffix : `/${suffix}`}`;
}

/**
 * True for requests that open a long-lived watch stream: `?watch=true|1`, or the legacy watch paths where `watch`
 * follows the group version (`/api/v1/watch/...`, `/apis/<group>/<version>/watch/...`), not a namespace named so.
 */
export function isWatch(pathAndQuery: string): boolean {
  const [path, query = ''] = pathAndQuery.split('?', 2);
  const watch = new URLSearchParams(query).get('watch');
  if (watch === 'true' || watch === '1') return true;
  const seg = path.split('/'); // ['', 'api', 'v1', 'watch', ...] or ['', 'apis', group, version, 'watch', ...]
  return (seg[1] === 'api' && seg[3] === 'watch') || (seg[1] === 'apis' && seg[4] === 'watch');
}

interface Exchange {
  watch: boolean;
  upstream: http.ClientRequest;
  res: ServerResponse;
  response?: IncomingMessage;
}

/**
 * Forwards kubectl's requests to the API server with the console's own credentials, as an impersonated identity.
 * Bodies are streamed both ways, never buffered: a watch response is a chunked stream that lasts minutes.
 */
export class KubeProxy {
  private readonly base: URL;
  private readonly agents = new Map<string, http.Agent>();
  private readonly open = new Set<Exchange>();

  constructor(private readonly cluster: ClusterConnection) {
    this.base = new URL(cluster.server);
  }

  /**
   * Sends `req` (whose body has not been read) to `<server><suffix>` and writes the API server's answer to `res`:
   * status, headers and body as they come, so 403/409/422 Status objects reach kubectl unchanged.
   */
  async forward(req: IncomingMessage, res: ServerResponse, suffix: string, identity: KubeIdentity): Promise<void> {
    const path = upstreamPath(this.base, suffix);
    // client-node fills in the console's credentials: bearer token (re-read from the service-account file, or from an
    // exec/OIDC provider, as it changes), client certificate, CA, skip-verify, basic auth.
    const opts: https.RequestOptions = { headers: {} };
    try {
      await this.cluster.kc.applyToHTTPSOptions(opts);
    } catch (err) {
      sendStatus(res, 502, 'InternalError', `the console cannot use its Kubernetes credentials: ${(err as Error).message}`);
      return;
    }
    const headers = upstreamHeaders(req, opts, identity, FORWARDED_REQUEST_HEADERS);

    const upstream = requestApiServer(this.base, { method: req.method, path, headers, auth: opts.auth, agent: this.agentFor(opts) });
    const exchange: Exchange = { watch: isWatch(suffix), upstream, res };
    this.open.add(exchange);
    const done = () => this.open.delete(exchange);

    connectTimeout(upstream);
    upstream.on('response', (response) => {
      exchange.response = response;
      const out: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(response.headers as IncomingHttpHeaders)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      }
      res.writeHead(response.statusCode ?? 502, out);
      // a watch may send nothing for minutes; clients (client-node's informer) wait for the headers before reading
      res.flushHeaders();
      response.pipe(res);
      response.on('error', () => res.destroy());
      response.on('end', done);
    });
    upstream.on('error', (err) => {
      done();
      if (res.destroyed || res.writableEnded) return; // the caller is gone, or was answered (shutdown)
      if (!res.headersSent) {
        const why = (err as NodeJS.ErrnoException).code ?? err.message;
        sendStatus(res, 502, 'InternalError', `the Kubernetes API server ${this.base.origin} cannot be reached: ${why}`);
      } else {
        res.destroy();
      }
    });
    // the caller went away (kubectl -w interrupted, a closed watch): end the upstream request too, so the API server
    // drops its watch instead of streaming into a dead connection
    res.on('close', () => {
      done();
      if (!exchange.response?.complete) upstream.destroy();
    });
    req.on('error', () => upstream.destroy());
    req.pipe(upstream);
  }

  /**
   * Ends the open watch streams cleanly (the chunked body is terminated, the API server's side is dropped), so a
   * shutting-down console does not wait minutes for them; kubectl and informers re-establish a watch by themselves.
   * Other requests in flight are left to finish.
   */
  endWatches(): void {
    for (const e of this.open) {
      if (!e.watch) continue;
      this.open.delete(e);
      e.response?.unpipe(e.res);
      // a watch still waiting for the API server's headers gets an answer too, or its connection would hold the close
      if (e.res.headersSent) e.res.end();
      else sendStatus(e.res, 503, 'ServiceUnavailable', 'the console is shutting down; watch again');
      e.upstream.destroy();
    }
  }

  /** Closes the kept-alive connections to the API server. */
  close(): void {
    this.endWatches();
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  /**
   * One kept-alive agent per TLS identity, so the several requests of a kubectl command share a connection (client-node
   * makes a fresh agent on every call). A cluster reached through an HTTP/SOCKS proxy keeps client-node's own agent.
   */
  private agentFor(opts: https.RequestOptions): http.Agent {
    if (this.cluster.kc.getCurrentCluster()?.proxyUrl && opts.agent) return opts.agent as http.Agent;
    const tls = { ca: opts.ca, cert: opts.cert, key: opts.key, rejectUnauthorized: opts.rejectUnauthorized, servername: opts.servername };
    const key = createHash('sha256')
      .update(JSON.stringify([this.base.protocol, tls.rejectUnauthorized, tls.servername]))
      .update(String(tls.ca ?? '')).update(String(tls.cert ?? '')).update(String(tls.key ?? ''))
      .digest('hex');
    let agent = this.agents.get(key);
    if (!agent) {
      // TLS credentials (CA, client certificate) change rarely; an older agent stays until close() because watches
      // may still be streaming over its connections
      agent = this.base.protocol === 'https:'
        ? new https.Agent({ keepAlive: true, ...tls })
        : new http.Agent({ keepAlive: true });
      this.agents.set(key, agent);
    }
    return agent;
  }
}

/**
 * The headers sent to the API server: the console's credentials, the allowed ones of the caller's, and the
 * impersonation of `identity`.
 */
/** A request to the API server at `base` (http or https, its host and port), with the given method, path and options. */
export function requestApiServer(base: URL, options: Omit<https.RequestOptions, 'protocol' | 'hostname' | 'port'>): http.ClientRequest {
  const secure = base.protocol === 'https:';
  return (secure ? https : http).request({
    ...options,
    protocol: base.protocol,
    hostname: base.hostname.replace(/^\[|\]$/g, ''),
    port: base.port || (secure ? 443 : 80),
  });
}

export function upstreamHeaders(req: IncomingMessage, opts: https.RequestOptions, identity: KubeIdentity, allowed: readonly string[]) {
  const headers: http.OutgoingHttpHeaders = { ...(opts.headers as http.OutgoingHttpHeaders) };
  for (const name of allowed) {
    const value = req.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  // after the copy, so nothing the caller sent (and no `as:` in the console's own kubeconfig) decides the identity
  for (const key of Object.keys(headers)) if (/^impersonate-/i.test(key)) delete headers[key];
  headers['Impersonate-User'] = identity.user;
  headers['Impersonate-Group'] = identity.groups;
  return headers;
}

/** A request that gets no TCP (and TLS) connection to the API server within CONNECT_TIMEOUT_MS fails. */
export function connectTimeout(upstream: http.ClientRequest): void {
  upstream.on('socket', (socket) => {
    if (!socket.connecting) return; // a kept-alive connection
    const timer = setTimeout(() => upstream.destroy(new Error('timed out connecting')), CONNECT_TIMEOUT_MS);
    socket.once('connect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });
}

/** Writes a Kubernetes Status object as a complete JSON response. */
export function sendStatus(res: ServerResponse, code: number, reason: string, message: string): void {
  const body = JSON.stringify(kubeStatus(code, reason, message));
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
