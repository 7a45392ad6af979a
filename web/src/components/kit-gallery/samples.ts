/** Deterministic sample data for the UI kit gallery (/__kit): the same rows on every load, for screenshots. */

export interface SampleCheck {
  id: string;
  name: string;
  namespace: string;
  type: string;
  health: 'healthy' | 'unhealthy' | 'warning' | 'unknown';
  budgetUsed: number;
  latencyMs: number;
  lastRun: string;
  labels: Record<string, string>;
}

const NAMESPACES = ['default', 'payments', 'platform', 'monitoring', 'ingress'];
const TYPES = ['http', 'tcp', 'dns', 'postgres', 'kubernetes', 'prometheus', 'exec'];
const SERVICES = ['api', 'checkout', 'ledger', 'search', 'auth', 'gateway', 'billing', 'catalog', 'orders', 'web'];
const HEALTH: SampleCheck['health'][] = ['healthy', 'healthy', 'healthy', 'healthy', 'warning', 'unhealthy', 'healthy', 'unknown'];

// a small LCG: stable "random" numbers without a dependency
function rng(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x / 2_147_483_648;
  };
}

/** `n` health checks, as the health page will list them. */
export function makeChecks(n: number, base = Date.now()): SampleCheck[] {
  const r = rng(42);
  return Array.from({ length: n }, (_, i) => {
    const service = SERVICES[i % SERVICES.length];
    const type = TYPES[Math.floor(r() * TYPES.length)];
    return {
      id: `check-${i}`,
      name: `${service}-${type}-${String(i).padStart(4, '0')}`,
      namespace: NAMESPACES[i % NAMESPACES.length],
      type,
      health: HEALTH[Math.floor(r() * HEALTH.length)],
      budgetUsed: Math.round(r() * 1000) / 10,
      latencyMs: Math.round(r() * r() * 90_000),
      lastRun: new Date(base - Math.floor(r() * 3 * 86_400_000)).toISOString(),
      labels: {
        team: ['sre', 'payments', 'platform'][i % 3],
        env: i % 4 ? 'prod' : 'staging',
        ...(i % 2 ? { region: 'eu-west-1' } : {}),
        ...(i % 3 ? { tier: String((i % 3) + 1) } : {}),
        ...(i % 5 === 0 ? { 'app.kubernetes.io/part-of': service } : {}),
      },
    };
  });
}

export const PEOPLE = [
  { id: '1', name: 'Ada Lovelace' },
  { id: '2', name: 'Grace Hopper' },
  { id: '3', name: 'Alan Turing' },
  { id: '4', name: 'Katherine Johnson' },
  { id: '5', name: 'Linus Torvalds' },
  { id: '6', name: 'Margaret Hamilton' },
  { id: '7', name: 'Barbara Liskov' },
];

export const SAMPLE_CONFIG = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'checkout', namespace: 'payments', labels: { app: 'checkout', tier: 'backend' } },
  spec: {
    replicas: 3,
    paused: false,
    selector: { matchLabels: { app: 'checkout' } },
    template: {
      spec: {
        containers: [
          {
            name: 'checkout',
            image: 'registry.example.com/checkout:1.42.0',
            ports: [{ containerPort: 8080 }],
            resources: { limits: { cpu: '500m', memory: '512Mi' } },
            env: [{ name: 'LOG_LEVEL', value: 'info' }, { name: 'FEATURE_X', value: null }],
          },
        ],
      },
    },
  },
};

export const SAMPLE_YAML = `# A health check the console will run every 30 seconds
apiVersion: canaries.flanksource.com/v1
kind: Canary
metadata:
  name: http-checks
  namespace: default
spec:
  schedule: "@every 30s"
  http:
    - name: payments-api
      url: https://payments.example.com/healthz
      responseCodes: [200, 201]
      thresholdMillis: 3000
      insecure: false
`;

/** A small JSON schema for the editor demo: a canary with a schedule and http checks. */
export const SAMPLE_SCHEMA = {
  title: 'Canary',
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string', enum: ['Canary'] },
    metadata: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', pattern: '^[a-z0-9-]+$' }, namespace: { type: 'string' } },
    },
    spec: {
      type: 'object',
      additionalProperties: false,
      properties: {
        schedule: { type: 'string', description: 'Cron or @every interval' },
        http: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'url'],
            additionalProperties: false,
            properties: {
              name: { type: 'string' },
              url: { type: 'string', format: 'uri' },
              responseCodes: { type: 'array', items: { type: 'integer' } },
              thresholdMillis: { type: 'integer', minimum: 0 },
              insecure: { type: 'boolean' },
            },
          },
        },
      },
    },
  },
};
