import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { DemoSet } from '../../lib/demo.js';
import { insertAccessToken } from '../auth/tokens.js';
import { generateAgent } from '../agents/generate.js';
import { recordResult } from '../health/queries.js';

/**
 * Agents and logs demo (issue 16 "Gates and demo"): the remote agent `eu-west-prod` made by generateAgent, with a
 * canary, checks and statuses of its own (three healthy, one failing), kept Online by an in-process pinger that calls
 * this console's own GET /api/upstream/ping every 30 s with a token only this process knows (minted at every start,
 * the previous one deleted); `us-east-staging`, last seen hours ago (Offline). The component `ops-console`, a static
 * component of the console-owned topology `console-logs`, whose log selector `console` a logging backend routes to
 * the console's own last 10,000 log lines (in a cluster, to its pod's log through the Kubernetes backend).
 */

export const DEMO_AGENT = 'eu-west-prod';
export const OFFLINE_AGENT = 'us-east-staging';
export const LOGS_COMPONENT = 'ops-console';
const LOGS_TOPOLOGY = { name: 'console-logs', namespace: 'default' };
const LOGS_BACKEND = { name: 'console-logs', namespace: 'default' };
const PINGER_TOKEN = 'demo-pinger';
const DEMO_LABELS = { env: 'demo' };
/** DEMO_AGENT_PING_MS: the pinger's interval (30 s; the agent is Online while pinged within 61 s). */
const PING_MS = Number(process.env.DEMO_AGENT_PING_MS) > 0 ? Number(process.env.DEMO_AGENT_PING_MS) : 30_000;

const AGENT_DETAILS = {
  hostname: 'mission-control-agent.eu-west-1.internal', description: 'Agent in the production cluster, eu-west-1',
  ip: '10.20.0.15', version: '0.1.0',
};

/** The agent's canary: what its cluster runs; the upstream stores the results it pushes and never runs them. */
const AGENT_CANARY = {
  name: 'storefront', namespace: 'shop', labels: { app: 'storefront', env: 'prod', region: 'eu-west-1' },
  spec: { schedule: '@every 1m', http: [] as unknown[], tcp: [] as unknown[] },
  checks: [
    { type: 'http', name: 'storefront-home', url: 'https://shop.eu-west-1.example.com/', pass: true, ms: 84, message: 'HTTP 200' },
    { type: 'http', name: 'checkout-api', url: 'https://shop.eu-west-1.example.com/api/checkout/health', pass: true, ms: 131, message: 'HTTP 200' },
    { type: 'tcp', name: 'postgres-primary', url: 'postgres-primary.shop.svc:5432', pass: true, ms: 3, message: 'connected' },
    {
      type: 'http', name: 'payments-gateway', url: 'https://payments.eu-west-1.example.com/health', pass: false, ms: 5000,
      message: null, error: 'Get "https://payments.eu-west-1.example.com/health": context deadline exceeded',
    },
  ],
};
for (const c of AGENT_CANARY.checks) {
  const spec = c.type === 'http' ? { name: c.name, url: c.url } : { name: c.name, endpoint: c.url };
  (c.type === 'http' ? AGENT_CANARY.spec.http : AGENT_CANARY.spec.tcp).push(spec);
}
/** Results per check in the demo history, one a minute up to the load. */
const HISTORY = 30;

/**
 * generateAgent runs its own transaction on a pool; the demo set runs inside one already. This pool-shaped adapter
 * gives it the demo's client with its BEGIN/COMMIT/ROLLBACK as a savepoint, so the agent is part of the set's
 * transaction (all or nothing, recorded once in demo_data_sets).
 */
function asPool(client: pg.PoolClient): pg.Pool {
  const tx: Record<string, string> = { BEGIN: 'SAVEPOINT demo_agent', COMMIT: 'RELEASE SAVEPOINT demo_agent', ROLLBACK: 'ROLLBACK TO SAVEPOINT demo_agent' };
  const wrapped = {
    query: (sql: unknown, params?: unknown[]) => client.query(typeof sql === 'string' && tx[sql] ? tx[sql] : sql as string, params),
    release: () => undefined,
  };
  return { connect: async () => wrapped, query: wrapped.query } as unknown as pg.Pool;
}

async function one(client: pg.PoolClient, sql: string, params: unknown[]): Promise<string | null> {
  const { rows } = await client.query<{ id: string }>(sql, params);
  return rows[0]?.id ?? null;
}

/** The demo agent, generated; the foundation set's older eu-west-prod (made without a person or token) is retired. */
async function demoAgent(client: pg.PoolClient, createdBy: string | null): Promise<string> {
  const { rows } = await client.query<{ id: string; person_id: string | null }>(
    'SELECT id, person_id FROM agents WHERE name = $1 AND deleted_at IS NULL', [DEMO_AGENT]);
  if (rows[0]?.person_id) return rows[0].id;
  if (rows[0]) await client.query('UPDATE agents SET deleted_at = now() WHERE id = $1', [rows[0].id]);
  const made = await generateAgent(asPool(client), { name: DEMO_AGENT, properties: { region: 'eu-west-1', env: 'prod' }, createdBy });
  await client.query(
    // last_seen: set by the pinger once the console listens
    'UPDATE agents SET hostname = $2, description = $3, ip = $4, version = $5, last_received = now() WHERE id = $1',
    [made.agent_id, AGENT_DETAILS.hostname, AGENT_DETAILS.description, AGENT_DETAILS.ip, AGENT_DETAILS.version]);
  return made.agent_id;
}

async function agentHealth(client: pg.PoolClient, agentId: string): Promise<void> {
  if (await one(client, 'SELECT id FROM canaries WHERE agent_id = $1 AND name = $2 AND deleted_at IS NULL', [agentId, AGENT_CANARY.name])) return;
  const { name, namespace, labels, spec } = AGENT_CANARY;
  const canaryId = (await one(client,
    // is_pushed: a pushed row is the agent's; the upstream never pushes it anywhere
    `INSERT INTO canaries (agent_id, name, namespace, labels, spec, source, is_pushed) VALUES ($1, $2, $3, $4, $5, 'push', true)
     RETURNING id`,
    [agentId, name, namespace, { ...labels, ...DEMO_LABELS }, spec]))!;
  const now = Date.now();
  for (const c of AGENT_CANARY.checks) {
    const checkId = (await one(client,
      `INSERT INTO checks (canary_id, agent_id, type, name, namespace, labels, spec, severity, is_pushed)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'high', true) RETURNING id`,
      [canaryId, agentId, c.type, c.name, namespace, labels, c.type === 'http' ? { url: c.url } : { endpoint: c.url }]))!;
    for (let i = HISTORY - 1; i >= 0; i--) {
      await recordResult(client, {
        checkId, canaryId, time: new Date(now - i * 60_000), duration: c.ms + (i % 5) * 3, pass: c.pass, invalid: false,
        message: c.message, error: c.pass ? null : c.error ?? null, details: null, severity: null, nextRuntime: null,
      });
    }
  }
  await client.query('UPDATE check_statuses SET is_pushed = true WHERE check_id IN (SELECT id FROM checks WHERE canary_id = $1)', [canaryId]);
}

async function offlineAgent(client: pg.PoolClient, createdBy: string | null): Promise<void> {
  if (await one(client, 'SELECT id FROM agents WHERE name = $1 AND deleted_at IS NULL', [OFFLINE_AGENT])) return;
  const made = await generateAgent(asPool(client), { name: OFFLINE_AGENT, properties: { region: 'us-east-1', env: 'staging' }, createdBy });
  await client.query(
    `UPDATE agents SET hostname = $2, description = $3, version = '0.1.0',
            last_seen = now() - interval '5 hours', last_received = now() - interval '5 hours 2 minutes' WHERE id = $1`,
    [made.agent_id, 'mission-control-agent.us-east-1.internal', 'Agent in the staging cluster, us-east-1 (switched off)']);
}

const inCluster = (env: NodeJS.ProcessEnv) => Boolean(env.POD_NAME && env.POD_NAMESPACE);

/** The logging backend the ops-console selector goes to: this process's ring buffer, or its pod's log in a cluster. */
export function consoleLogsSpec(env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  const routes = [{ type: 'console' }];
  return { backends: [inCluster(env) ? { kubernetes: { namespace: env.POD_NAMESPACE, routes } } : { console: { routes } }] };
}

/** The ops-console component's log selectors: in a cluster they name this pod (the kubernetes backend reads `pod`). */
export function consoleLogSelectors(env: NodeJS.ProcessEnv = process.env): Array<Record<string, unknown>> {
  const labels: Record<string, string> = { app: LOGS_COMPONENT };
  if (inCluster(env)) Object.assign(labels, { pod: env.POD_NAME!, namespace: env.POD_NAMESPACE! });
  return [{ name: 'console', type: 'console', labels }];
}

async function logsComponent(client: pg.PoolClient, createdBy: string | null): Promise<void> {
  const component = {
    name: LOGS_COMPONENT, type: 'Application', icon: 'console', description: "The console's own log",
    logs: consoleLogSelectors(),
  };
  const spec = { text: 'Console logs', type: 'Logs', icon: 'logs', schedule: '@every 1h', components: [component] };
  if (!await one(client, 'SELECT id FROM topologies WHERE name = $1 AND namespace = $2 AND deleted_at IS NULL', [LOGS_TOPOLOGY.name, LOGS_TOPOLOGY.namespace])) {
    const topologyId = (await one(client,
      `INSERT INTO topologies (name, namespace, spec, schedule, labels, source, created_by) VALUES ($1, $2, $3, $4, $5, 'UI', $6) RETURNING id`,
      [LOGS_TOPOLOGY.name, LOGS_TOPOLOGY.namespace, spec, spec.schedule, DEMO_LABELS, createdBy]))!;
    // on the runner's own key (topology, type, name, parent): its runs adopt these rows
    const root = (await one(client,
      `INSERT INTO components (topology_id, name, text, type, icon, topology_type, external_id, schedule)
       VALUES ($1, $2, $2, $3, $4, $3, $2, $5) RETURNING id`,
      [topologyId, spec.text, spec.type, spec.icon, spec.schedule]))!;
    await client.query(
      `INSERT INTO components (topology_id, parent_id, name, type, icon, description, topology_type, external_id, schedule,
                               log_selectors, is_leaf, namespace)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $3, $8, $9, true, $10)`,
      [topologyId, root, component.name, component.type, component.icon, component.description, spec.type, spec.schedule,
        JSON.stringify(component.logs), LOGS_TOPOLOGY.namespace]);
  }
  if (!await one(client, 'SELECT id FROM logging_backends WHERE name = $1 AND namespace = $2 AND deleted_at IS NULL', [LOGS_BACKEND.name, LOGS_BACKEND.namespace])) {
    await client.query(
      `INSERT INTO logging_backends (name, namespace, labels, spec, source, created_by) VALUES ($1, $2, $3, $4, 'UI', $5)`,
      [LOGS_BACKEND.name, LOGS_BACKEND.namespace, DEMO_LABELS, consoleLogsSpec(), createdBy]);
  }
}

/** This console's own address, as seen from itself (a wildcard listen address is reached on loopback). */
function ownUrl(app: FastifyInstance): string | null {
  const a = app.server.address() as AddressInfo | string | null;
  if (!a || typeof a === 'string') return null;
  const host = a.address === '0.0.0.0' || a.address === '::' ? '127.0.0.1' : a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return `http://${host}:${a.port}`;
}

/** A fresh pinger token for the demo agent (the plaintext stays in this process); null when there is no such agent. */
async function pingerToken(db: pg.Pool): Promise<string | null> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ person_id: string }>(
      'SELECT person_id FROM agents WHERE name = $1 AND deleted_at IS NULL AND person_id IS NOT NULL', [DEMO_AGENT]);
    if (!rows[0]) { await client.query('ROLLBACK'); return null; }
    await client.query('DELETE FROM access_tokens WHERE person_id = $1 AND name = $2', [rows[0].person_id, PINGER_TOKEN]);
    const made = await insertAccessToken(client, {
      personId: rows[0].person_id, name: PINGER_TOKEN, createdBy: null, autoRenew: false,
      expiresAt: new Date(Date.now() + 365 * 24 * 3600_000),
    });
    await client.query('COMMIT');
    return made.token;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * In a cluster the pod's name changes with every rollout: the demo backend, the topology's spec and the component's
 * selector are pointed at the current pod (demo rows only; the topology's next run keeps what its spec says).
 */
async function refreshLogsRoute(db: pg.Pool): Promise<void> {
  if (!inCluster(process.env)) return;
  const selectors = JSON.stringify(consoleLogSelectors());
  await db.query(
    `UPDATE logging_backends SET spec = $3 WHERE name = $1 AND namespace = $2 AND deleted_at IS NULL AND labels @> '{"env":"demo"}'`,
    [LOGS_BACKEND.name, LOGS_BACKEND.namespace, consoleLogsSpec()]);
  const { rows } = await db.query<{ id: string }>(
    `UPDATE topologies t SET spec = jsonb_set(t.spec, '{components,0,logs}', $3::jsonb)
      WHERE name = $1 AND namespace = $2 AND deleted_at IS NULL AND labels @> '{"env":"demo"}'
        AND t.spec #> '{components,0,name}' = to_jsonb($4::text) RETURNING id`,
    [LOGS_TOPOLOGY.name, LOGS_TOPOLOGY.namespace, selectors, LOGS_COMPONENT]);
  if (rows[0]) {
    await db.query('UPDATE components SET log_selectors = $2::jsonb WHERE topology_id = $1 AND name = $3 AND deleted_at IS NULL',
      [rows[0].id, selectors, LOGS_COMPONENT]);
  }
}

/** One pinger per app: a second start replaces the first (whose token it deletes). */
const pingers = new WeakMap<FastifyInstance, () => void>();

/**
 * The demo agent's pinger: a real HTTP GET of this console's /api/upstream/ping every PING_MS, as an agent would.
 * Started once the app listens; stops when the server closes (or the agent is gone: a 401 mints a new token once).
 */
async function startPinger(app: FastifyInstance): Promise<void> {
  pingers.get(app)?.();
  const base = ownUrl(app);
  if (!base) return;
  let token = await pingerToken(app.db);
  if (!token) return;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => { if (timer) clearInterval(timer); timer = undefined; };
  pingers.set(app, stop);
  const ping = async (retry: boolean): Promise<void> => {
    if (!token || !app.server.listening) return stop();
    const res = await fetch(`${base}/api/upstream/ping?agent_name=${encodeURIComponent(DEMO_AGENT)}`, {
      headers: { authorization: `Basic ${Buffer.from(`token:${token}`).toString('base64')}` },
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status === 401 && retry) {
      token = await pingerToken(app.db);
      if (!token) return stop();
      return ping(false);
    }
    if (res.status === 404) return stop(); // a mode without /api/upstream (check-runner)
    if (!res.ok) app.log.warn({ status: res.status }, 'demo agent ping refused');
  };
  const tick = () => void ping(true).catch((err) => app.log.warn({ err }, 'demo agent ping failed'));
  timer = setInterval(tick, PING_MS);
  timer.unref();
  app.server.once('close', stop);
  tick();
}

export const agentsDemo: DemoSet = {
  name: 'agents',
  async load(client) {
    const createdBy = await one(client, `SELECT id FROM people WHERE email = 'alice.nguyen@example.com' AND deleted_at IS NULL`, []);
    const agentId = await demoAgent(client, createdBy);
    await agentHealth(client, agentId);
    await offlineAgent(client, createdBy);
    await logsComponent(client, createdBy);
  },
  async start(app) {
    await refreshLogsRoute(app.db);
    await startPinger(app);
  },
};
