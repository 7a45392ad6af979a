import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyRequest, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import type { Config } from './config.js';
import { redactKubeproxyPathToken } from './lib/kubeproxy-path.js';
import { authPlugin } from './plugins/auth.js';
import { dbPlugin } from './plugins/db.js';
import { errorsPlugin } from './plugins/errors.js';
import { metricsPlugin } from './plugins/metrics.js';
import { systemRoutes } from './modules/system/routes.js';
import { securityPlugin } from './plugins/security.js';
import { authRoutes } from './modules/auth/routes.js';
import { oryRoutes } from './modules/auth/flows/routes.js';
import { courierModule } from './modules/auth/courier/index.js';
import { oidcModule } from './modules/auth/oidc/index.js';
import { peopleRoutes } from './modules/people/routes.js';
import { propertiesRoutes } from './modules/properties/routes.js';
import { dbRoutes } from './modules/db/routes.js';
import { spaPlugin } from './plugins/spa.js';
import { wsPlugin } from './plugins/ws.js';
import { kubePlugin } from './plugins/kube.js';
import { healthRoutes } from './modules/health/routes.js';
import { healthSchemaRoutes } from './modules/health/schema-routes.js';
import { catalogSchemaRoutes } from './modules/catalog/schema-routes.js';
import { incidentsRoutes } from './modules/incidents/routes.js';
import { kubernetesProxyRoutes } from './modules/kubernetes/proxy-routes.js';
import { connectionRoutes } from './modules/connections/routes.js';
import { connectionTestRoutes } from './modules/connections/test-routes.js';
import { catalogApiRoutes } from './modules/catalog/api/routes.js';
import { catalogModule } from './modules/catalog/index.js';
import { kubernetesLiveModule } from './modules/catalog/kubernetes/live-module.js';
import { topologyModule } from './modules/topology/index.js';
import { playbooksModule } from './modules/playbooks/index.js';
import { eventsModule } from './modules/events/index.js';
import { notificationsModule } from './modules/notifications/index.js';
import { agentsModule } from './modules/agents/index.js';
import { upstreamModule } from './modules/upstream/index.js';
import { agentRuntimeModule } from './modules/agent-runtime/index.js';
import { logsModule } from './modules/logs/index.js';
import { consoleLogStream } from './modules/logs/ring-buffer.js';

export interface BuildOptions {
  /** Fastify logger options; tests pass false. */
  logger?: FastifyServerOptions['logger'];
}

/** Paths whose values never reach the logs. */
export const LOG_REDACT = [
  'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-csrf-token"]', 'res.headers["set-cookie"]',
];

/**
 * A `?token=` query parameter (a webhook check's token, as the reference sends it) as `[redacted]`; also an OpenID
 * Connect callback's `code` and `state` (/api/auth/oidc/callback).
 */
const redactQueryToken = (url: string) => url.replace(/([?&](?:token|code|state)=)[^&#]*/gi, '$1[redacted]');

/** Request log fields; the URL without a kubeconfig's path token (server/lib/kubeproxy-path.ts) or a query token. */
export const LOG_SERIALIZERS = {
  req: (req: FastifyRequest) => ({
    method: req.method, url: redactQueryToken(redactKubeproxyPathToken(req.url)), host: req.host, remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
};

/** Builds the whole service as one Fastify app; main.ts only listens. Needs config.DATABASE_URL. */
export async function buildApp(config: Config, opts: BuildOptions = {}) {
  if (!config.DATABASE_URL) throw new Error('buildApp needs DATABASE_URL (main.ts starts the embedded database)');
  const app = Fastify({
    // stdout, and the last 10,000 lines for the logs' `console` backend
    logger: opts.logger ?? { level: config.LOG_LEVEL, redact: { paths: LOG_REDACT, censor: '[redacted]' }, serializers: LOG_SERIALIZERS, stream: consoleLogStream() },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    trustProxy: config.TRUST_PROXY,
    routerOptions: { maxParamLength: 500 },
  });
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  await app.register(errorsPlugin);
  await app.register(securityPlugin, { config });
  await app.register(metricsPlugin);
  await app.register(cookie);
  await app.register(dbPlugin, { connectionString: config.DATABASE_URL, max: config.DB_POOL_MAX });
  await app.register(authPlugin, { sessionIdleMinutes: config.SESSION_IDLE_MINUTES });
  // MODE (DESIGN.md "Modes"): console = everything; check-runner = the health view and the health API only (sign-in,
  // the health relations of /api/db, live updates, probes, metrics); agent = no UI: its cluster's Canary CRs (kube
  // plugin kindsFor) and the canaries pulled from UPSTREAM_URL run on its health scheduler into its own database,
  // and the agent runtime pushes that outbox to UPSTREAM_URL (needs AGENT_TOKEN; refuses to start without both).
  const { MODE } = config;
  const full = MODE !== 'check-runner';
  await app.register(wsPlugin, { config });
  // Kubernetes (informers, leader election, CR edits): before the health routes, which run their scheduler on the
  // leader only and whose canary routes it hooks into. In every mode (kindsFor() in the plugin says which kinds).
  await app.register(kubePlugin, { config });

  await app.register(systemRoutes, { config });
  await app.register(authRoutes, { prefix: '/api/auth', config, invites: full });
  await app.register(oryRoutes, { prefix: '/api/.ory', config }); // Kratos-compatible sign-in flows and sessions
  await app.register(courierModule, { config }); // sign-in mail outbox sender and sign-in data retention (leader)
  await app.register(oidcModule, { prefix: '/api/auth', config }); // GET /api/auth/config, organisations, hosted mode /api/auth/oidc/*
  if (full) {
    await app.register(peopleRoutes, { prefix: '/api' });
    await app.register(propertiesRoutes, { prefix: '/api/properties' });
    await app.register(incidentsRoutes, { prefix: '/api/incidents', config }); // responder delivery, resend
    await app.register(kubernetesProxyRoutes, { config, cluster: app.kube.cluster }); // GET /api/kubeconfig, /kubeproxy/*
    await app.register(connectionTestRoutes); // POST /api/connection/test[/{id}]
    await app.register(connectionRoutes); // GET /api/connection/{id}/usage
    await app.register(catalogApiRoutes, { prefix: '/api/catalog' }); // summary, changes search, relationships
    await app.register(catalogModule, { config }); // scrape engine: scheduler on the leader, POST /api/config/run/{id}
    await app.register(kubernetesLiveModule, { config }); // kubernetes scrapers' kinds watched on the leader, saved as they change
    await app.register(topologyModule, { config }); // GET /api/topology and /api/canary/api/topology
    await app.register(eventsModule, { config }); // app.eventQueue: the event_queue consumer on every replica, event sources
    await app.register(playbooksModule, { config }); // specs, run engine, triggers, webhooks, /api/playbook
    await app.register(notificationsModule, { config }); // rules, silences, send pipeline, senders, /api/notification
    await app.register(agentsModule, { config }); // /api/agent/generate, agent edits and deletes, /api/agent/charts
    await app.register(upstreamModule, { config }); // /api/upstream/*: what agents push and pull
    await app.register(logsModule, { config }); // POST /api/logs over the logging backends
    if (MODE === 'agent') await app.register(agentRuntimeModule, { config }); // outbox pusher, pinger, canary puller
  }
  await app.register(dbRoutes, { prefix: '/api/db', only: full ? undefined : (_name, resource) => resource === 'canaries' });
  await app.register(healthRoutes, { prefix: '/api/canary', config });
  await app.register(healthSchemaRoutes, { prefix: '/api/schemas' });
  await app.register(catalogSchemaRoutes, { prefix: '/api/schemas' });
  if (MODE !== 'agent') await app.register(spaPlugin, { root: config.WEB_DIR }); // last: it owns the GET /* fallback
  return app;
}
