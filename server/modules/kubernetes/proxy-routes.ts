import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { ApiError, ForbiddenError } from '../../lib/errors.js';
import { notifyChange } from '../../lib/events.js';
import { inTransaction } from '../../lib/tx.js';
import { parseExpiry } from '../auth/expiry.js';
import { propertyMap } from '../auth/queries.js';
import { insertTokenPerson } from '../auth/token-queries.js';
import { insertAccessToken } from '../auth/tokens.js';
import { loadCluster, type ClusterConnection } from './cluster.js';
import { stripKubeproxyPathToken } from '../../lib/kubeproxy-path.js';
import { buildKubeconfig, kubeconfigFileName } from './kubeconfig.js';
import { KubeProxy, kubeIdentityFor, kubeStatus } from './proxy.js';
import { KubeTunnels } from './tunnel.js';
import { sameOrigin } from '../../plugins/ws.js';

export interface KubernetesProxyOptions {
  config: Config;
  /** The console's cluster connection; `undefined` loads it from the config, `null` means no cluster. */
  cluster?: ClusterConnection | null;
}

/**
 * Lifetime of the token inside a downloaded kubeconfig: the same default as a personal access token (the
 * `access_token.default_expiry` property, else 90 days). Long enough that a kubeconfig is not a daily chore; the
 * token is listed under the user's tokens (named "kubeconfig <time>") and can be revoked there, and it stops
 * working at once when its owner is deactivated or deleted.
 */
const DEFAULT_EXPIRY = '90d';

const notConnected = () => new ApiError(503, 'not_connected',
  'the console is not connected to a Kubernetes cluster (it needs in-cluster credentials or KUBECONFIG)');

const REASONS: Record<number, string> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed',
  413: 'RequestEntityTooLarge', 415: 'UnsupportedMediaType', 429: 'TooManyRequests', 503: 'ServiceUnavailable',
};

/**
 * kubectl through the console (reference api.md "/kubeconfig and kubectl"):
 * - `GET /api/kubeconfig` mints an access token for the caller and returns a kubeconfig whose server is
 *   `<PUBLIC_URL>/kubeproxy`;
 * - `/kubeproxy/*` forwards to the API server with the console's own credentials, impersonating the writer or the
 *   reader identity by the caller's role, so cluster RBAC decides what kubectl may do.
 */
export const kubernetesProxyRoutes: FastifyPluginAsync<KubernetesProxyOptions> = async (app, opts) => {
  const { config } = opts;

  app.get('/api/kubeconfig', { config: { access: { resource: 'kubernetes-proxy', action: 'write' } } }, async (req, reply) => {
    const p = req.principal!;
    // as with POST /api/auth/create_token: a token minting tokens would outlive its own revocation
    if (p.via === 'token') throw new ForbiddenError('access tokens cannot download a kubeconfig; sign in to download one');
    // The download is a GET that creates a token (the spec opens it in a new tab), so CSRF tokens cannot guard it.
    // A cross-site page could still make the browser open it: the response is unreadable to that page, but it would
    // leave a token behind, so such requests are refused (browsers send Sec-Fetch-Site on every navigation).
    if (req.headers['sec-fetch-site'] === 'cross-site') throw new ForbiddenError('a kubeconfig cannot be requested from another site');

    const expiry = (await propertyMap(app.db))['access_token.default_expiry'] ?? DEFAULT_EXPIRY;
    const expiresAt = new Date(Date.now() + parseExpiry(expiry));
    // unique per creator (like any token name); the time says which download it was, the suffix separates two in a second
    const name = `kubeconfig ${new Date().toISOString().slice(0, 19).replace('T', ' ')} ${randomBytes(2).toString('hex')}`;
    const token = await inTransaction(app.db, async (c) => {
      const personId = await insertTokenPerson(c, p, name);
      const created = await insertAccessToken(c, { personId, name, createdBy: p.id, expiresAt, autoRenew: false });
      await notifyChange(c, { relation: 'access_tokens', ids: [created.id] });
      return created;
    });
    req.log.info({ tokenId: token.id, expiresAt }, 'kubeconfig token created');
    return reply
      .type('text/yaml; charset=utf-8')
      .header('content-disposition', `attachment; filename="${kubeconfigFileName(config.publicUrl)}"`)
      .header('cache-control', 'no-store')
      .send(buildKubeconfig({ publicUrl: config.publicUrl, token: token.token }));
  });

  // The proxy lives in its own encapsulated context: its body parsing and its error format differ from the API's.
  await app.register(async (proxyApp) => {
    const cluster = opts.cluster === undefined ? loadCluster(config) : opts.cluster;
    const proxy = cluster ? new KubeProxy(cluster) : null;
    const tunnels = cluster ? new KubeTunnels(cluster) : null;
    // open watches and exec sessions would otherwise hold a shutdown (app.close waits for connections) until the API
    // server or the user ends them
    proxyApp.addHook('preClose', async () => {
      proxy?.endWatches();
      tunnels?.closeAll();
    });
    proxyApp.addHook('onClose', async () => {
      proxy?.close();
      tunnels?.closeAll();
    });

    // Upgrades (kubectl exec, attach, port-forward: WebSocket, then SPDY/3.1). @fastify/websocket (plugins/ws.ts)
    // listens to the server's 'upgrade' event and runs every upgrade request through the router, with a response bound
    // to the raw socket, so auth, access and this context's error handler apply as to any request, and refusals are
    // plain HTTP answers. Its route wrapper would then answer the upgrade itself as a WebSocket; the preHandler
    // below takes the socket first (a hijacked reply skips the handler). What the caller sent after its headers is
    // only handed to 'upgrade' listeners, so one placed in front of @fastify/websocket's keeps it for the tunnel.
    const upgradeHeads = new WeakMap<IncomingMessage, Buffer>();
    const keepHead = (req: IncomingMessage, _socket: unknown, head: Buffer) => {
      if (req.url?.startsWith('/kubeproxy')) upgradeHeads.set(req, head);
    };
    if (app.hasPlugin('@fastify/websocket')) {
      app.server.prependListener('upgrade', keepHead);
      proxyApp.addHook('onClose', async () => {
        app.server.off('upgrade', keepHead);
      });
    }
    // a refused upgrade (401, 403) is the last answer on its connection: no HTTP parser reads it any more
    proxyApp.addHook('onSend', async (req, reply) => {
      if (upgradeHeads.has(req.raw)) reply.header('connection', 'close');
    });
    proxyApp.addHook('preHandler', async (req, reply) => {
      // only what came through the server's 'upgrade' event (Node's parser saw Connection: Upgrade and an Upgrade header)
      const head = upgradeHeads.get(req.raw);
      if (!head) return; // an ordinary request: the handler forwards it
      // (here, not in the handler: @fastify/websocket's wrapper of the handler would answer an upgrade itself)
      if (!tunnels) throw notConnected();
      // A browser sends the session cookie with a WebSocket to any origin, and the upgrade is a GET the CSRF check
      // lets through: without this, any site a signed-in user visits could open a shell in their name.
      if (req.principal?.via === 'session' && !sameOrigin(req, config.publicUrl)) {
        throw new ForbiddenError('cross-origin upgrade refused');
      }
      const raw = stripKubeproxyPathToken(req.raw.url ?? '/');
      const suffix = raw.slice('/kubeproxy'.length) || '/';
      reply.hijack();
      await tunnels.open(req.raw, reply.raw, req.raw.socket, head, suffix, kubeIdentityFor(req.principal!.roles), req.log);
    });

    // Bodies pass through untouched, whatever their type (kubectl sends application/json, merge-patch+json,
    // json-patch+json, strategic-merge-patch+json, apply-patch+yaml, protobuf): no parser reads them, the handler
    // pipes the raw request stream upstream. The API server enforces its own size limit (3 MiB), so the console's
    // 1 MiB API body limit does not apply; only authenticated callers get this far (auth runs in onRequest).
    proxyApp.removeAllContentTypeParsers();
    proxyApp.addContentTypeParser('*', (_req, _payload, done) => done(null));

    // kubectl prints a Status object's message ("error: You must be logged in to the server (Unauthorized)",
    // "Error from server (Forbidden): ..."), so the proxy's own refusals are Status objects too
    proxyApp.setErrorHandler((err: FastifyError, req, reply) => {
      const code = err instanceof ApiError ? err.statusCode : typeof err.statusCode === 'number' && err.statusCode < 500 ? err.statusCode : 500;
      if (code >= 500) req.log.error({ err }, 'kubeproxy error');
      const message = code >= 500 && !(err instanceof ApiError) ? 'internal server error' : err.message;
      return reply.status(code).type('application/json').send(kubeStatus(code, REASONS[code] ?? 'InternalError', message));
    });

    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      if (!proxy) throw notConnected();
      const raw = stripKubeproxyPathToken(req.raw.url ?? '/');
      const suffix = raw.slice('/kubeproxy'.length) || '/';
      reply.hijack();
      reply.raw.setHeader('x-request-id', req.id);
      await proxy.forward(req.raw, reply.raw, suffix, kubeIdentityFor(req.principal!.roles));
    };
    // read on kubernetes-proxy: every signed-in role (viewers act as the reader). Session callers pass through the
    // auth plugin's CSRF check on writes like anywhere else; kubectl sends Basic or Bearer and needs none.
    const route = {
      method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      config: { access: { resource: 'kubernetes-proxy' as const, action: 'read' as const } },
      exposeHeadRoute: false,
      handler,
    };
    proxyApp.route({ ...route, url: '/kubeproxy' });
    proxyApp.route({ ...route, url: '/kubeproxy/*' });
  });
};
