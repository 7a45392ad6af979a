import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's Prometheus registry (one per app: tests build several apps in one process). */
    metrics: Registry;
  }
}

const LABELS = ['method', 'route', 'status_code'] as const;

/**
 * Prometheus text at GET /metrics: request counts and latency per route pattern, the database pool, and the
 * process defaults. Public, like the probes: an in-cluster Prometheus scrapes it without credentials, and it holds
 * no data beyond counts and timings.
 */
export const metricsPlugin = fp(
  async (app) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });

    const requests = new Counter({
      name: 'http_requests_total', help: 'HTTP requests answered, by route pattern',
      labelNames: LABELS, registers: [registry],
    });
    const duration = new Histogram({
      name: 'http_request_duration_seconds', help: 'HTTP request latency, by route pattern',
      labelNames: LABELS, registers: [registry],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    });
    // Read at scrape time; the pool is decorated by the db plugin, which may register after this one.
    const pool = (field: 'totalCount' | 'idleCount' | 'waitingCount') =>
      function collect(this: Gauge) {
        if (app.hasDecorator('db')) this.set(app.db[field]);
      };
    new Gauge({ name: 'db_pool_connections', help: 'Open database connections', registers: [registry], collect: pool('totalCount') });
    new Gauge({ name: 'db_pool_idle_connections', help: 'Idle database connections', registers: [registry], collect: pool('idleCount') });
    new Gauge({
      name: 'db_pool_waiting_clients', help: 'Queries waiting for a database connection',
      registers: [registry], collect: pool('waitingCount'),
    });

    app.decorate('metrics', registry);

    app.addHook('onResponse', async (req, reply) => {
      // The route pattern, never the raw URL, keeps the label set bounded; 404s share one label.
      const labels = { method: req.method, route: req.routeOptions.url ?? 'unmatched', status_code: reply.statusCode };
      requests.inc(labels);
      duration.observe(labels, reply.elapsedTime / 1000);
    });

    app.get('/metrics', { config: { access: 'public' } }, async (_req, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    });
  },
  { name: 'metrics' },
);
