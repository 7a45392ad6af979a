import { z } from 'zod';
import { ActionEnvVar } from './env-var.js';

/** An environment variable of the script: a literal `value`, or `valueFrom` a Secret or ConfigMap key. */
const ExecEnvVar = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name (letters, digits, _)'),
  value: z.string().optional(),
  /** The same `valueFrom` as every action's EnvVar fields (./env-var.ts). */
  valueFrom: ActionEnvVar.options[1].shape.valueFrom,
}).loose();

/** A git repository cloned (depth 1, the system `git`) before the script runs; the script runs inside it. */
const ExecCheckout = z.object({
  url: z.string().optional(),
  connection: z.string().optional(),
  destination: z.string()
    .refine((d) => !d.startsWith('/') && !d.split('/').includes('..'), 'must be a relative path inside the action\'s temporary directory')
    .optional(),
}).loose().refine((c) => !!(c.url || c.connection), { message: 'url or connection is required', path: ['url'] });

/** A connection reference: `connection://ns/name`, a name or an id. */
const ConnectionRef = z.string().min(1, 'connection: a connection://namespace/name, a name or an id');

/**
 * The reference's ExecConnections: credentials handed to the script's CLIs as files and environment variables. Each
 * takes a `connection` (a connection row) or the values inline (EnvVars: a string, `{value}` or `{valueFrom}`).
 * - kubernetes: the kubeconfig (the connection's certificate column) written to a file, KUBECONFIG;
 * - aws: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION/AWS_DEFAULT_REGION, AWS_ENDPOINT_URL
 *   and a credentials file (AWS_SHARED_CREDENTIALS_FILE);
 * - gcp: the service account key JSON written to a file, GOOGLE_APPLICATION_CREDENTIALS and
 *   CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE;
 * - azure: AZURE_CLIENT_ID, AZURE_CLIENT_SECRET, AZURE_TENANT_ID;
 * - git (ours): the connection's username/password answered to the script's own git commands (GIT_ASKPASS).
 * `fromConfigItem` and `eksPodIdentity` (the scraper's credentials, pod identity) are refused.
 */
const ExecConnections = z.object({
  kubernetes: z.object({ connection: ConnectionRef.optional(), kubeconfig: ActionEnvVar.optional() }).loose()
    .refine((c) => !!(c.connection || c.kubeconfig), { message: 'connection or kubeconfig is required', path: ['connection'] }).optional(),
  aws: z.object({
    connection: ConnectionRef.optional(), accessKey: ActionEnvVar.optional(), secretKey: ActionEnvVar.optional(),
    sessionToken: ActionEnvVar.optional(), region: z.string().optional(), endpoint: z.string().optional(),
  }).loose().optional(),
  gcp: z.object({ connection: ConnectionRef.optional(), credentials: ActionEnvVar.optional() }).loose().optional(),
  azure: z.object({
    connection: ConnectionRef.optional(), clientID: ActionEnvVar.optional(), clientSecret: ActionEnvVar.optional(), tenantID: z.string().optional(),
  }).loose().optional(),
  git: z.object({ connection: ConnectionRef }).loose().optional(),
  fromConfigItem: z.never({ error: 'fromConfigItem (a scraper\'s credentials) is not supported by this console: name a connection' }).optional(),
  eksPodIdentity: z.never({ error: 'eksPodIdentity is not supported by this console: name an aws connection' }).optional(),
}).loose();

/**
 * A file (or a glob) stored as an artifact of the action after it ran: an absolute path or glob (`/tmp/output.txt`,
 * `/tmp/logs/*`; the script runs as the console's user and can read those files anyway), or a relative one inside the
 * action's working directory (no `..`). `/dev/stdout` and `/dev/stderr` store the script's output (the reference's).
 */
const ExecArtifact = z.object({
  path: z.string().min(1, 'path is required')
    .refine((p) => !p.split('/').includes('..'), 'must not contain .. : a relative path (or glob) stays inside the action\'s working directory; name other files by an absolute path'),
}).loose();

/**
 * The `exec` action's block (issue 14; the reference's ExecAction): a bash `script` run in a fresh temporary directory
 * with an environment built from scratch → `{stdout, stderr, exitCode}`. `connections` hand credentials to the
 * script's CLIs; `artifacts` are files it leaves (in its working directory or at absolute paths), stored in the
 * artifacts table. The reference's `setup` (runtime installers) is refused by path.
 */
export const ExecAction = z.object({
  script: z.string({ error: 'script is required' }).trim().min(1, 'script is required'),
  env: z.array(ExecEnvVar).optional(),
  checkout: ExecCheckout.optional(),
  connections: ExecConnections.optional(),
  setup: z.never({ error: 'exec setup (runtime installers) is not supported by this console: use the tools installed on its machine' }).optional(),
  artifacts: z.array(ExecArtifact).max(20, 'at most 20 artifact paths').optional(),
}).loose();
export type ExecAction = z.infer<typeof ExecAction>;
