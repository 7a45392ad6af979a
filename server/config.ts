import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Every environment variable the service reads. README lists the same set. */
const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  /** Port for the embedded PostgreSQL; 0 picks a free one. */
  EMBEDDED_PG_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  ADMIN_EMAIL: z.string().email().default('admin@localhost'),
  ADMIN_PASSWORD: z.string().min(8).optional(),
  DEMO_DATA: bool.default(true),
  MODE: z.enum(['console', 'check-runner', 'agent']).default('console'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Public URL of the console, used in invite links and kubeconfigs; defaults to http://localhost:PORT. */
  PUBLIC_URL: z.string().url().optional(),
  SESSION_TTL_HOURS: z.coerce.number().positive().default(24 * 7),
  /** Login attempts allowed per client address per minute. */
  LOGIN_RATE_LIMIT: z.coerce.number().int().positive().default(10),
  /**
   * Self-service flow submissions (POST /api/.ory/self-service/<kind>, and mail links) allowed per client address per
   * minute, then 429 with Retry-After; unset: 6 × LOGIN_RATE_LIMIT (60), so a high LOGIN_RATE_LIMIT lifts both.
   */
  AUTH_FLOW_RATE_LIMIT: z.coerce.number().int().positive().optional(),
  /** Sign-in mode: `local` (Kratos-like browser flows under /api/.ory) or `oidc` (any OpenID Connect provider). */
  AUTH_MODE: z.enum(['local', 'oidc']).default('local'),
  /** How long a self-service flow (login, registration, recovery, verification, settings) stays usable. */
  AUTH_FLOW_MINUTES: z.coerce.number().positive().default(60),
  /** How long after signing in password, email and second-factor changes are allowed without signing in again. */
  PRIVILEGED_SESSION_MINUTES: z.coerce.number().positive().default(15),
  /** A session unused for this long ends (besides SESSION_TTL_HOURS). */
  SESSION_IDLE_MINUTES: z.coerce.number().positive().default(720),
  /** 32 bytes (base64 or 64 hex) encrypting TOTP secrets (AES-256-GCM); else generated once into DATA_DIR. */
  AUTH_ENCRYPTION_KEY: z.string().optional(),
  /** AUTH_MODE=oidc: the provider's issuer URL (discovery at <issuer>/.well-known/openid-configuration). */
  OIDC_ISSUER: z.string().url().optional(),
  OIDC_CLIENT_ID: z.string().optional(),
  OIDC_CLIENT_SECRET: z.string().optional(),
  /** Space-separated scopes asked for. */
  OIDC_SCOPES: z.string().default('openid email profile'),
  /** The provider's name on the login page ("Sign in with …"). */
  OIDC_DISPLAY_NAME: z.string().default('SSO'),
  /** Who may still sign in with a local password in oidc mode (break-glass). */
  OIDC_LOCAL_LOGIN: z.enum(['admins', 'all', 'none']).default('admins'),
  /** The id_token/userinfo claim holding organisations: a string, a list, or an object keyed by id (Keycloak). */
  OIDC_ORG_CLAIM: z.string().default('organization'),
  /** JSON list of {claim, value, role, org?} (value a glob, claim a dotted path such as realm_access.roles). */
  OIDC_ROLE_MAPPING: z.string().optional(),
  /** A CEL expression returning a role name or list of role names (like the reference's IdentityRoleMapper). */
  OIDC_ROLE_MAPPER_CEL: z.string().optional(),
  /** Trust X-Forwarded-* headers (set when behind an ingress); off by default so clients cannot spoof their address. */
  TRUST_PROXY: bool.default(false),
  DB_POOL_MAX: z.coerce.number().int().positive().default(20),
  /**
   * Kubernetes: `auto` connects when KUBECONFIG is set or the pod has in-cluster credentials, `off` never connects.
   * With a connection the console watches its custom resources, proxies kubectl (/kubeproxy) and elects a leader.
   */
  KUBERNETES: z.enum(['auto', 'off']).default('auto'),
  /** Path of a kubeconfig file (its current context is used); without it, in-cluster credentials when present. */
  KUBECONFIG: z.string().optional(),
  /** Namespaces to watch, comma separated; unset watches all namespaces. */
  WATCH_NAMESPACES: z.string().optional(),
  /** Namespace of the leader-election Lease (the chart sets it to the release namespace). */
  POD_NAMESPACE: z.string().default('default'),
  /** This replica's identity in the Lease; defaults to the host name. */
  POD_NAME: z.string().optional(),
  /** Name of the leader-election Lease. */
  LEADER_LEASE_NAME: z.string().default('ops-console-leader'),
  /** How long a Secret or ConfigMap read for a check's `valueFrom` is reused before it is read again (0: every run). */
  VALUE_FROM_CACHE_SECONDS: z.coerce.number().min(0).default(60),
  /** The built web bundle to serve; defaults to dist/web at the repository root. */
  WEB_DIR: z.string().optional(),
  UPSTREAM_URL: z.string().url().optional(),
  AGENT_TOKEN: z.string().optional(),
  /** MODE=agent: this agent's name, sent as `?agent_name=` (the upstream refuses a name not matching the token). */
  AGENT_NAME: z.string().optional(),
  /** MODE=agent: unpushed rows kept at most; past it the oldest check statuses are dropped (counted, logged). */
  AGENT_BUFFER_MAX_ROWS: z.coerce.number().int().positive().default(1_000_000),
  /** MODE=agent: how often the outbox is pushed to UPSTREAM_URL (a full batch is followed by the next at once). */
  AGENT_PUSH_INTERVAL_MS: z.coerce.number().int().positive().default(5000),
  /** MODE=agent: how often the agent pings its upstream (it is Online there while pings come within 61 s). */
  AGENT_PING_INTERVAL_MS: z.coerce.number().int().positive().default(30_000),
  /** MODE=agent: how often the agent pulls the canaries its upstream made for it. */
  AGENT_PULL_INTERVAL_MS: z.coerce.number().int().positive().default(30_000),
  /** MODE=agent: the longest wait between failed pushes (the back-off doubles from 1 s up to this). */
  AGENT_BACKOFF_MAX_MS: z.coerce.number().int().positive().default(60_000),
  /** MODE=agent: send push lag, buffer depth, dropped rows, version and topology name with each ping. */
  AGENT_PUSH_TELEMETRY: bool.default(false),
  /** MODE=agent: the topology name sent with the telemetry. */
  AGENT_TOPOLOGY_NAME: z.string().optional(),
  /** MODE=agent: scrape this cluster with the catalog's kubernetes scraper (chart `agent.kubernetes.enabled`). */
  AGENT_KUBERNETES_SCRAPE: bool.default(false),
  /** MODE=agent: how often that scrape runs, a Go duration such as 30m or 1h30m (chart `agent.kubernetes.scrapeInterval`). */
  AGENT_KUBERNETES_SCRAPE_INTERVAL: z.string().regex(/^(\d+(\.\d+)?(ms|s|m|h))+$/, 'expected a duration such as 30s, 5m or 1h').default('30m'),
  /** A Helm repository URL (https:// or oci://) the agent install snippets use instead of this console's /api/agent/charts. */
  AGENT_CHART_REPO: z.string().url().optional(),
  /** Playbook `exec` actions (bash as the console's user): `off` refuses them. */
  PLAYBOOK_EXEC: z.enum(['on', 'off']).default('on'),
  /** How exec scripts are started: posix_spawn (the default, where it works) or node's child_process; read by
   *  modules/playbooks/actions/exec-process.ts, checked here so that a typo stops the start. */
  PLAYBOOK_EXEC_SPAWNER: z.enum(['posix_spawn', 'child_process']).optional(),
  /** `off`: verify passwords with @node-rs/argon2 rather than the native verifier built into dist/native (read by
   *  lib/argon2-native.ts, checked here so that a typo stops the start). */
  ARGON2_NATIVE: z.enum(['auto', 'off']).optional(),
  /** Key for secrets stored encrypted (playbook `secret` parameters): 32 bytes as hex or base64, or a passphrase;
   *  unset, a key file is created once under DATA_DIR (secrets.key, mode 0600). */
  SECRETS_KEY: z.string().optional(),
  /** Playbook actions one replica runs at a time (each run takes one action at a time). */
  PLAYBOOK_CONCURRENCY: z.coerce.number().int().positive().default(8),
  /** `off`: this replica runs no playbook actions (its runs are taken by the replicas that do). */
  PLAYBOOK_ENGINE: z.enum(['on', 'off']).default('on'),
  /** How long a replica's claim on a playbook run lasts without its heartbeat; a killed replica's runs go on after it. */
  PLAYBOOK_LEASE_SECONDS: z.coerce.number().positive().default(30),
  /** Notification senders: a JSON map service → base URL replacing its public host (`{"slack":"http://127.0.0.1:9000"}`; tests). */
  NOTIFICATION_ENDPOINTS: z
    .string()
    .transform((v, ctx) => {
      try {
        const m = JSON.parse(v) as unknown;
        if (m && typeof m === 'object' && !Array.isArray(m) && Object.values(m).every((x) => typeof x === 'string')) return m as Record<string, string>;
      } catch {
        // reported below
      }
      ctx.addIssue({ code: 'custom', message: 'expected a JSON object of service → base URL' });
      return z.NEVER;
    })
    .optional(),
  /** The system mail for notifications to people, when no email connection named `system` exists. */
  SMTP_HOST: z.string().optional(),
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
  SMTP_USER: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  SMTP_FROM: z.string().optional(),
  /** Auto (STARTTLS when offered), None, ExplicitTLS (STARTTLS required), ImplicitTLS (TLS from the start). */
  SMTP_ENCRYPTION: z.enum(['Auto', 'None', 'ExplicitTLS', 'ImplicitTLS']).default('Auto'),
  /** How often the leader writes Notification CRs' status (send counts, last sent / failed), in seconds. */
  NOTIFICATION_CR_STATUS_SECONDS: z.coerce.number().positive().default(30),
  /** How long a notification delivery is its replica's before another replica's sweeper re-takes it (seconds). */
  NOTIFICATION_DELIVERY_LEASE_SECONDS: z.coerce.number().positive().default(120),
});

export type Config = z.infer<typeof Env> & { publicUrl: string; appVersion: string };

/** What MODE=agent lacks to start (UPSTREAM_URL, AGENT_TOKEN), as one message; null when nothing. main.ts refuses on it. */
export function agentSettingsProblem(c: Pick<Config, 'MODE' | 'UPSTREAM_URL' | 'AGENT_TOKEN'>): string | null {
  if (c.MODE !== 'agent') return null;
  const missing = [!c.UPSTREAM_URL && 'UPSTREAM_URL', !c.AGENT_TOKEN && 'AGENT_TOKEN'].filter(Boolean);
  return missing.length ? `MODE=agent needs ${missing.join(' and ')} (the upstream console's URL and the agent's token)` : null;
}

/** Parses the environment (or overrides, for tests) into a typed config; throws a readable error on bad input. */
export function loadConfig(env: Record<string, string | undefined> = process.env, appVersion = '0.0.0'): Config {
  const parsed = Env.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  return { ...c, publicUrl: (c.PUBLIC_URL ?? `http://localhost:${c.PORT}`).replace(/\/$/, ''), appVersion };
}
