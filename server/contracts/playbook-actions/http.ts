import { z } from 'zod';
import { ActionEnvVar, templatedString } from './env-var.js';

/** A request header: a name and a value, or its value from a Secret or ConfigMap. */
const Header = z.object({ name: z.string().min(1), value: z.string().optional(), valueFrom: z.unknown().optional() }).loose();

/**
 * The `http` action's block (issue 14; the reference's HTTPAction): `url` or `connection` (`connection://ns/name`, a
 * connection's name or id) → `{code, headers, content}`. `oauth`, `digest`, `ntlm`, `ntlmv2` and `awsSigV4` are the
 * reference's too but not run here: refused at save by path.
 */
export const HttpAction = z.object({
  url: z.string().optional(),
  connection: z.string().optional(),
  method: templatedString((v) => /^[A-Za-z]+$/.test(v), 'must be an HTTP method (GET, POST...)').optional(),
  headers: z.array(Header).optional(),
  body: z.string().optional(),
  /** Render `body` as a template (the engine renders every string; kept for the reference's specs). */
  templateBody: z.boolean().optional(),
  username: ActionEnvVar.optional(),
  password: ActionEnvVar.optional(),
  bearer: ActionEnvVar.optional(),
  tls: z.object({ insecureSkipVerify: z.boolean().optional(), ca: z.string().optional() }).loose().optional(),
  oauth: z.never({ error: 'oauth is not supported by this console' }).optional(),
  digest: z.never({ error: 'digest is not supported by this console' }).optional(),
  ntlm: z.never({ error: 'ntlm is not supported by this console' }).optional(),
  ntlmv2: z.never({ error: 'ntlmv2 is not supported by this console' }).optional(),
  awsSigV4: z.never({ error: 'awsSigV4 is not supported by this console' }).optional(),
}).loose().refine((a) => !!(a.url || a.connection), { message: 'url or connection is required', path: ['url'] });
export type HttpAction = z.infer<typeof HttpAction>;
