import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecAction } from '../../../contracts/playbook-actions/exec.js';
import type { HydratedConnection } from '../../../lib/connection-hydrate.js';
import { envValue, useConnection } from './support.js';
import type { ActionContext } from './types.js';

/**
 * exec's `connections` (the reference's ExecConnections): credentials for the script's CLIs, written as files under
 * the action's private directory (mode 0600, removed with it) and as environment variables, as the reference's shell
 * runner does. Every credential is handed to the masker. A connection is `connection://ns/name`, a name or an id; the
 * inline fields are EnvVars (valueFrom read now).
 *
 * - kubernetes: the kubeconfig (a kubernetes connection's certificate column, or `kubeconfig`) → KUBECONFIG;
 * - aws: access key (username), secret key (password), `region` (or the connection's region property), `endpoint`
 *   (or its url) → AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION, AWS_DEFAULT_REGION,
 *   AWS_ENDPOINT_URL, and AWS_SHARED_CREDENTIALS_FILE ([default] profile);
 * - gcp: the service account key JSON (a google_cloud connection's password or certificate, or `credentials`) →
 *   GOOGLE_APPLICATION_CREDENTIALS, CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE;
 * - azure: client id (username), secret (password), tenant (`tenantID` or the connection's tenant property) →
 *   AZURE_CLIENT_ID, AZURE_CLIENT_SECRET, AZURE_TENANT_ID;
 * - git (ours): a git connection's username/password answer the script's own git commands through GIT_ASKPASS
 *   (GIT_URL: the connection's url).
 */

type Connections = NonNullable<ExecAction['connections']>;

const ASKPASS = `#!/bin/sh
case "$1" in
  Username*) printf '%s\\n' "$PLAYBOOK_GIT_USERNAME" ;;
  *) printf '%s\\n' "$PLAYBOOK_GIT_PASSWORD" ;;
esac
`;

const prop = (c: HydratedConnection | null, ...keys: string[]): string | undefined => {
  for (const k of keys) {
    const v = c?.properties?.[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
};

/** The env vars the connections give, after writing their files under `dir` (created here, 0700). */
export async function connectionEnv(ctx: ActionContext, connections: Connections, dir: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  const secret = (v: string | undefined) => {
    if (v) ctx.addSecret(v);
    return v;
  };
  const conn = async (ref: string | undefined, field: string) => {
    if (!ref) return null;
    try {
      return await useConnection(ctx, ref);
    } catch (err) {
      throw new Error(`exec: connections.${field}: ${(err as Error).message}`);
    }
  };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = async (name: string, content: string) => {
    const path = join(dir, name);
    await writeFile(path, content, { mode: 0o600 });
    return path;
  };

  if (connections.kubernetes) {
    const k = connections.kubernetes;
    const c = await conn(k.connection, 'kubernetes.connection');
    const kubeconfig = secret(k.kubeconfig !== undefined ? await envValue(ctx, k.kubeconfig, 'kubeconfig', true) : c?.certificate || undefined);
    if (!kubeconfig) throw new Error('exec: connections.kubernetes: the connection has no kubeconfig (its certificate field)');
    env.KUBECONFIG = await file('kubeconfig', kubeconfig);
  }

  if (connections.aws) {
    const a = connections.aws;
    const c = await conn(a.connection, 'aws.connection');
    const accessKey = secret(a.accessKey !== undefined ? await envValue(ctx, a.accessKey, 'accessKey', true) : c?.username || undefined);
    const secretKey = secret(a.secretKey !== undefined ? await envValue(ctx, a.secretKey, 'secretKey', true) : c?.password || undefined);
    const sessionToken = secret(a.sessionToken !== undefined ? await envValue(ctx, a.sessionToken, 'sessionToken', true) : prop(c, 'sessionToken', 'session_token'));
    const region = a.region || prop(c, 'region');
    const endpoint = a.endpoint || prop(c, 'endpoint') || c?.url || undefined;
    if (!accessKey || !secretKey) throw new Error('exec: connections.aws: an access key and a secret key are required');
    Object.assign(env, { AWS_ACCESS_KEY_ID: accessKey, AWS_SECRET_ACCESS_KEY: secretKey });
    if (sessionToken) env.AWS_SESSION_TOKEN = sessionToken;
    if (region) Object.assign(env, { AWS_REGION: region, AWS_DEFAULT_REGION: region });
    if (endpoint) env.AWS_ENDPOINT_URL = endpoint;
    env.AWS_SHARED_CREDENTIALS_FILE = await file('aws-credentials', [
      '[default]', `aws_access_key_id = ${accessKey}`, `aws_secret_access_key = ${secretKey}`,
      ...(sessionToken ? [`aws_session_token = ${sessionToken}`] : []), ...(region ? [`region = ${region}`] : []), '',
    ].join('\n'));
  }

  if (connections.gcp) {
    const g = connections.gcp;
    const c = await conn(g.connection, 'gcp.connection');
    const credentials = secret(g.credentials !== undefined ? await envValue(ctx, g.credentials, 'credentials', true) : c?.password || c?.certificate || undefined);
    if (!credentials) throw new Error('exec: connections.gcp: the service account key (credentials) is required');
    const path = await file('gcp-credentials.json', credentials);
    Object.assign(env, { GOOGLE_APPLICATION_CREDENTIALS: path, CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE: path });
  }

  if (connections.azure) {
    const z = connections.azure;
    const c = await conn(z.connection, 'azure.connection');
    const clientID = z.clientID !== undefined ? await envValue(ctx, z.clientID, 'clientID') : c?.username || undefined;
    const clientSecret = secret(z.clientSecret !== undefined ? await envValue(ctx, z.clientSecret, 'clientSecret', true) : c?.password || undefined);
    const tenantID = z.tenantID || prop(c, 'tenantID', 'tenant_id', 'tenant');
    if (!clientID || !clientSecret || !tenantID) throw new Error('exec: connections.azure: clientID, clientSecret and tenantID are required');
    Object.assign(env, { AZURE_CLIENT_ID: clientID, AZURE_CLIENT_SECRET: clientSecret, AZURE_TENANT_ID: tenantID });
  }

  if (connections.git) {
    const c = (await conn(connections.git.connection, 'git.connection'))!;
    if (c.username || c.password) {
      Object.assign(env, {
        GIT_ASKPASS: await file('git-askpass.sh', ASKPASS),
        GIT_TERMINAL_PROMPT: '0',
        PLAYBOOK_GIT_USERNAME: c.username || 'git',
        PLAYBOOK_GIT_PASSWORD: c.password,
      });
      await chmod(env.GIT_ASKPASS, 0o700); // the helper must be executable
    }
    if (c.url) env.GIT_URL = c.url;
  }
  return env;
}
