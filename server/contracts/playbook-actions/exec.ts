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

/**
 * The `exec` action's block (issue 14; the reference's ExecAction): a bash `script` run in a fresh temporary directory
 * with an environment built from scratch → `{stdout, stderr, exitCode}`. The reference's cloud `connections` (AWS, GCP,
 * Azure, Kubernetes credentials written for CLIs), `setup` (runtime installers) and `artifacts` (kept in its blob
 * store) are refused by path.
 */
export const ExecAction = z.object({
  script: z.string({ error: 'script is required' }).trim().min(1, 'script is required'),
  env: z.array(ExecEnvVar).optional(),
  checkout: ExecCheckout.optional(),
  connections: z.never({ error: 'exec connections (cloud and Kubernetes credentials) are not supported by this console: pass credentials with env[] valueFrom' }).optional(),
  setup: z.never({ error: 'exec setup (runtime installers) is not supported by this console: use the tools installed on its machine' }).optional(),
  artifacts: z.never({ error: 'exec artifacts are not stored by this console: print what you need to stdout' }).optional(),
}).loose();
export type ExecAction = z.infer<typeof ExecAction>;
