import { ConnectionResolver } from '../../health/connections.js';
import { hasValueFrom, ValueFromResolver } from '../../../lib/value-from.js';
import type { ScrapeContext } from '../types.js';

/**
 * `connection://<namespace>/<name>` and EnvVar `valueFrom` in a scraper block, through the same resolvers health
 * checks use (server/modules/health/connections.ts, value-from.ts), read from the scraper's namespace. What comes
 * back as `secrets` must be masked in any error the run reports.
 */

const NO_CLUSTER = new ValueFromResolver({ reader: null, unavailable: 'valueFrom needs a Kubernetes cluster connection' });
const resolvers = new WeakMap<object, ConnectionResolver>();

function resolverFor(ctx: ScrapeContext): ConnectionResolver {
  // one resolver (and its 10 s row cache) per pool and valueFrom reader
  const key = ctx.valueFrom ?? ctx.db;
  let r = resolvers.get(key);
  if (!r) {
    r = new ConnectionResolver({ db: ctx.db, valueFrom: ctx.valueFrom });
    resolvers.set(key, r);
  }
  return r;
}

/** The block with its `connection://` merged in, as a check of `checkType` (http, postgres, mysql) would see it. */
export async function withConnection(ctx: ScrapeContext, checkType: string, block: Record<string, unknown>): Promise<{ spec: Record<string, unknown>; secrets: string[] }> {
  return resolverFor(ctx).resolve(checkType, block, ctx.namespace);
}

/** EnvVars' valueFrom resolved into `value` (anything else kept as it is). */
export async function withValues<T extends Record<string, unknown>>(ctx: ScrapeContext, spec: T): Promise<{ spec: T; secrets: string[] }> {
  if (!hasValueFrom(spec)) return { spec, secrets: [] };
  const r = await (ctx.valueFrom ?? NO_CLUSTER).resolve(spec, ctx.namespace);
  return { spec: r.spec as T, secrets: r.secrets };
}

/** `text` with every secret replaced by `***` (an error message, a source name). */
export function masked(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('***');
  return out;
}

/** A URL for messages: no userinfo, no query (tokens live there). */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//');
  }
}
