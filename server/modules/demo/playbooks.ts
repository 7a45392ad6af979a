import type pg from 'pg';
import type { DemoSet } from '../../lib/demo.js';

/**
 * The playbooks' demo (issue 14 "Demo"): an approval-gated restart (approvers: the admin and team Platform SRE), a
 * playbook on the demo's failing check (on.canary failed: its first failure after start runs it), a webhook one, a
 * showcase of every parameter type, and a few past runs (completed, failed with an error, cancelled) with their
 * actions and logs, so the runs list is not empty on first start. Scripts only echo: nothing is restarted.
 */

const SYSTEM = '00000000-0000-0000-0000-000000000000';
/** The demo's failing check (health.ts: legacy-billing's billing-api, nothing listens on port 1). */
const FAILING_CHECK = 'billing-api';
/** The demo webhook's path and its basic credentials (a demo's: put real ones in a Secret, valueFrom). */
export const DEMO_WEBHOOK = { path: 'demo/deploy-finished', username: 'demo', password: 'demo-webhook' };

/** The demo playbooks' specs; exported for the demo test (each passes the spec's checks). */
export function demoPlaybooks(adminEmail: string) {
  return [
    {
      name: 'restart-deployment',
      spec: {
        title: 'Restart deployment', category: 'Kubernetes', icon: 'kubernetes',
        description: 'Rolls a deployment\'s pods, once someone of Platform SRE (or the admin) approves',
        approval: { type: 'any', approvers: { people: [adminEmail], teams: ['Platform SRE'] } },
        parameters: [
          { name: 'deployment', label: 'Deployment', type: 'text', default: 'billing-api', required: true, properties: { format: 'dns1123' } },
          { name: 'namespace', label: 'Namespace', type: 'text', default: 'payments' },
        ],
        actions: [{
          name: 'restart', timeout: '2m',
          exec: { script: 'echo "kubectl rollout restart deployment/{{.params.deployment}} -n {{.params.namespace}}"\necho "deployment.apps/{{.params.deployment}} restarted"' },
        }],
      },
    },
    {
      name: 'restart-failing-service',
      spec: {
        title: 'Restart failing service', category: 'Health', icon: 'health',
        description: `Runs when ${FAILING_CHECK} fails, and from its check's Playbooks menu`,
        checks: [{ name: FAILING_CHECK }],
        on: { canary: [{ event: 'failed', filter: `check.name == '${FAILING_CHECK}'` }] },
        actions: [
          { name: 'restart', exec: { script: 'echo restarting {{.check.name}}' } },
          { name: 'verify', exec: { script: 'echo "{{.check.name}} was {{.check.status}}; a new result follows on the next run"' } },
        ],
      },
    },
    {
      name: 'deploy-finished',
      spec: {
        title: 'Deploy finished (webhook)', category: 'Delivery', icon: 'webhook',
        description: `POST /api/playbook/webhook/${DEMO_WEBHOOK.path} with basic auth ${DEMO_WEBHOOK.username}:${DEMO_WEBHOOK.password}`,
        on: {
          webhook: {
            path: DEMO_WEBHOOK.path,
            authentication: { basic: { username: DEMO_WEBHOOK.username, password: DEMO_WEBHOOK.password } },
          },
        },
        actions: [{ name: 'announce', exec: { script: 'echo "{{.request.method}} {{.request.url}}"\necho \'{{.request.content}}\'' } }],
      },
    },
    {
      name: 'parameters-showcase',
      spec: {
        title: 'Parameters showcase', category: 'Demo', icon: 'playbook',
        description: 'One field of each parameter type; the script prints what it was given (the secret as ***)',
        parameters: [
          { name: 'service', label: 'Service', type: 'text', default: 'billing-api', required: true,
            properties: { minLength: 3, maxLength: 40, regex: '^[a-z][a-z0-9-]*$' } },
          { name: 'replicas', label: 'Replicas', type: 'text', default: '3', properties: { min: 1, max: 10 } },
          { name: 'notes', label: 'Notes', type: 'text', properties: { multiline: true } },
          { name: 'dry_run', label: 'Dry run', type: 'checkbox', default: 'true' },
          { name: 'environment', label: 'Environment', type: 'list', default: 'staging',
            properties: { options: [{ label: 'Staging', value: 'staging' }, { label: 'Production', value: 'production' }] } },
          { name: 'token', label: 'API token', type: 'secret', description: 'Stored encrypted; printed as ***' },
          { name: 'values', label: 'Values', type: 'code', default: 'image:\n  tag: v1.2.3\n', properties: { language: 'yaml' } },
          { name: 'cpu', label: 'CPU', type: 'millicores', default: '500m' },
          { name: 'memory', label: 'Memory', type: 'bytes', default: '512Mi' },
          { name: 'window', label: 'Maintenance window', type: 'duration', default: '30m' },
          { name: 'owner', label: 'Owner', type: 'people' },
          { name: 'team', label: 'Team', type: 'team' },
        ],
        actions: [{
          name: 'print',
          exec: {
            script: [
              'echo "service={{.params.service}} replicas={{.params.replicas}} environment={{.params.environment}}"',
              'echo "dry_run={{.params.dry_run}} cpu={{.params.cpu}} memory={{.params.memory}} window={{.params.window}}"',
              // an optional parameter left empty is absent from .params (Go prints <no value>): default it
              'echo "token={{ .params.token | default "(none given)" }}"',
            ].join('\n'),
          },
        }],
      },
    },
  ];
}

interface PastAction { name: string; status: string; stdout?: string[]; stderr?: string[]; error?: string; result?: Record<string, unknown> }
interface PastRun {
  playbook: string; status: string; ago: string; minutes: number; by: 'admin' | 'system'; check?: boolean;
  params?: Record<string, unknown>; error?: string; actions: PastAction[];
}

const done = (stdout: string[]): PastAction['result'] => ({ stdout: stdout.join('\n'), stderr: '', exitCode: 0 });

/** The past runs (newest last); exported for the demo test. */
export const PAST_RUNS: readonly PastRun[] = [
  {
    playbook: 'restart-deployment', status: 'completed', ago: '2 days', minutes: 1, by: 'admin',
    params: { deployment: 'billing-api', namespace: 'payments' },
    actions: [{
      name: 'restart', status: 'completed',
      stdout: ['kubectl rollout restart deployment/billing-api -n payments', 'deployment.apps/billing-api restarted'],
    }],
  },
  {
    playbook: 'parameters-showcase', status: 'failed', ago: '1 day', minutes: 2, by: 'admin',
    params: { service: 'billing-api', replicas: '3', dry_run: 'false', environment: 'production', cpu: '500m', memory: '512Mi', window: '30m' },
    actions: [{
      name: 'print', status: 'failed', error: 'exit status 1',
      stdout: ['service=billing-api replicas=3 environment=production'],
      stderr: ['\u001b[31merror:\u001b[0m production changes need dry_run first'],
      result: { stdout: 'service=billing-api replicas=3 environment=production', stderr: 'error: production changes need dry_run first', exitCode: 1 },
    }],
  },
  {
    playbook: 'restart-failing-service', status: 'completed', ago: '5 hours', minutes: 1, by: 'system', check: true,
    actions: [
      { name: 'restart', status: 'completed', stdout: [`restarting ${FAILING_CHECK}`] },
      { name: 'verify', status: 'completed', stdout: [`${FAILING_CHECK} was unhealthy; a new result follows on the next run`] },
    ],
  },
  {
    playbook: 'restart-deployment', status: 'cancelled', ago: '2 hours', minutes: 3, by: 'admin',
    params: { deployment: 'checkout', namespace: 'shop' },
    actions: [{ name: 'restart', status: 'failed', error: 'cancelled', stdout: ['kubectl rollout restart deployment/checkout -n shop'] }],
  },
];

async function adminPerson(client: pg.PoolClient): Promise<{ id: string; email: string } | undefined> {
  const { rows } = await client.query<{ id: string; email: string }>(
    `SELECT p.id, p.email FROM people p JOIN person_roles r ON r.person_id = p.id AND r.role = 'admin'
      WHERE p.deleted_at IS NULL AND p.email IS NOT NULL ORDER BY p.created_at LIMIT 1`);
  return rows[0];
}

async function insertPastRun(client: pg.PoolClient, run: PastRun, ids: Map<string, { id: string; spec: unknown }>, by: string, checkId: string | null) {
  const pb = ids.get(run.playbook)!;
  const start = `now() - interval '${run.ago}'`;
  const end = `${start} + interval '${run.minutes} minutes'`;
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO playbook_runs (playbook_id, spec, status, created_at, scheduled_time, start_time, end_time, created_by,
                                check_id, parameters, error)
     VALUES ($1, $2, $3, ${start}, ${start}, ${start}, ${end}, $4, $5, $6, $7) RETURNING id`,
    [pb.id, pb.spec, run.status, by, run.check ? checkId : null, run.params ?? {}, run.error ?? null]);
  const runId = rows[0].id;
  if ((pb.spec as { approval?: unknown }).approval) {
    await client.query(`INSERT INTO playbook_approvals (run_id, person_id, created_at) VALUES ($1, $2, ${start})`, [runId, by]);
  }
  for (const a of run.actions) {
    const result = a.result ?? (a.status === 'completed' ? done(a.stdout ?? []) : null);
    const { rows: act } = await client.query<{ id: string }>(
      `INSERT INTO playbook_run_actions (name, status, playbook_run_id, scheduled_time, start_time, end_time, result, error)
       VALUES ($1, $2, $3, ${start}, ${start}, ${end}, $4, $5) RETURNING id`,
      [a.name, a.status, runId, result, a.error ?? null]);
    const lines = [...(a.stdout ?? []).map((text) => ['stdout', text]), ...(a.stderr ?? []).map((text) => ['stderr', text])];
    for (const [i, [stream, text]] of lines.entries()) {
      await client.query(
        `INSERT INTO playbook_run_action_logs (action_id, seq, run_id, stream, text, created_at) VALUES ($1, $2, $3, $4, $5, ${start})`,
        [act[0].id, i + 1, runId, stream, `${text}\n`]);
    }
  }
}

/** The demo playbooks and their past runs (loaded after health: the failing check's runs point at it). */
export const playbooksDemo: DemoSet = {
  name: 'playbooks',
  async load(client) {
    const admin = await adminPerson(client);
    const ids = new Map<string, { id: string; spec: unknown }>();
    for (const p of demoPlaybooks(admin?.email ?? process.env.ADMIN_EMAIL ?? 'admin@localhost')) {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO playbooks (name, namespace, title, description, category, icon, spec, source, created_by)
         SELECT $1, 'default', $2, $3, $4, $5, $6, 'UI', $7
          WHERE NOT EXISTS (SELECT 1 FROM playbooks WHERE name = $1 AND namespace = 'default' AND deleted_at IS NULL)
         RETURNING id`,
        [p.name, p.spec.title, p.spec.description, p.spec.category, p.spec.icon, p.spec, admin?.id ?? null]);
      if (rows[0]) ids.set(p.name, { id: rows[0].id, spec: p.spec });
    }
    const check = await client.query<{ id: string }>('SELECT id FROM checks WHERE name = $1 AND deleted_at IS NULL LIMIT 1', [FAILING_CHECK]);
    for (const run of PAST_RUNS) {
      // only for playbooks this load created: an installation with its own playbook of that name keeps its history
      if (!ids.has(run.playbook)) continue;
      await insertPastRun(client, run, ids, run.by === 'admin' && admin ? admin.id : SYSTEM, check.rows[0]?.id ?? null);
    }
  },
};
