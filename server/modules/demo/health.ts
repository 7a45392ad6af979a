import type { DemoSet } from '../../lib/demo.js';
import { insertCanary, reconcileChecks } from '../health/queries.js';
import { validateCanarySpec } from '../health/spec.js';

/**
 * Where the console listens, seen from inside its own pod (PUBLIC_URL may be an ingress it cannot reach). Demo sets
 * get no config, so PORT is read as config.ts reads it (default 8080).
 */
export function selfUrl(): { base: string; port: number } {
  const n = Number(process.env.PORT);
  const port = Number.isInteger(n) && n > 0 && n < 65536 ? n : 8080;
  return { base: `http://127.0.0.1:${port}`, port };
}

/** The demo canaries; exported for the test that reads their display messages. */
export function demoCanaries() {
  const { base, port } = selfUrl();
  const labels = { app: 'console', env: 'demo' };
  return [
    {
      name: 'console-self', namespace: 'default', labels,
      spec: {
        schedule: '@every 30s', severity: 'high',
        http: [{
          name: 'console-healthz', description: 'The console answers its liveness probe', icon: 'http',
          url: `${base}/healthz`, responseCodes: [200], responseJSONContent: { path: '$.status', value: 'ok' },
          thresholdMillis: 2000, display: { expr: "'HTTP ' + string(code)" },
        }],
        tcp: [{ name: 'console-port', description: `TCP connect to port ${port}`, endpoint: `127.0.0.1:${port}`, thresholdMillis: 1000 }],
      },
    },
    {
      name: 'platform-basics', namespace: 'platform', labels: { ...labels, team: 'platform' },
      spec: {
        schedule: '@every 1m', severity: 'medium',
        dns: [{ name: 'localhost-resolves', description: 'The system resolver knows localhost', query: 'localhost', querytype: 'A', minrecords: 1 }],
        exec: [{
          name: 'shell-echo', description: 'A shell script runs and prints ok', script: 'echo ok',
          test: { expr: "stdout.contains('ok')" }, display: { expr: 'stdout.trim()' },
        }],
      },
    },
    {
      name: 'legacy-billing', namespace: 'payments', labels: { ...labels, team: 'payments' },
      spec: {
        schedule: '@every 45s', severity: 'critical',
        http: [{
          name: 'billing-api', description: 'A service that is down: nothing listens on port 1',
          url: 'http://127.0.0.1:1/health', thresholdMillis: 1000,
        }],
      },
    },
  ];
}

/** Canaries that check the console itself (HTTP, TCP, DNS, exec), and one that always fails. */
export const healthDemo: DemoSet = {
  name: 'health',
  async load(client) {
    for (const c of demoCanaries()) {
      const exists = await client.query('SELECT 1 FROM canaries WHERE name = $1 AND namespace = $2 AND deleted_at IS NULL', [c.name, c.namespace]);
      if (exists.rowCount) continue;
      const valid = validateCanarySpec(c.spec);
      const row = await insertCanary(client, { ...c, source: 'UI', createdBy: null });
      await reconcileChecks(client, row.id, row.namespace, valid.checks);
    }
  },
};
