import type pg from 'pg';
import { errorText } from '../../../lib/checks/util.js';
import type { ValueFromResolver } from '../../../lib/value-from.js';
import { TopologyQuery, type TopologyComponent } from '../../../contracts/topology.js';
import { ConnectionResolver } from '../../health/connections.js';
import { executeCheck } from '../../health/runner.js';
import { fetchSubtree } from '../queries.js';
import { buildTopology } from '../tree.js';

/**
 * A Topology's `push` (canary-checker's TopologySpec.PushLocation, a duty HTTPConnection): after a run has saved its
 * components, the root with its whole tree is POSTed there as JSON (`Content-Type: application/json`), as the
 * reference's pushTopologyToLocation; a failure is a line of the run's errors ("error pushing topology: …"), never
 * the run's end. The request is health's http check (so `connection://`, Basic, Bearer, Digest, NTLM, OAuth2 client
 * credentials, TLS and `valueFrom` Secrets work as they do there, credentials masked in errors); a 2xx answer is
 * success. The body is the tree as GET /api/topology?id=<root> answers it (10 levels), summary and status rolled up.
 * Ours: a push with only `connection` (no `url`) pushes to the connection's url (the reference needs `url`).
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** Posts `body` to the spec's push location; throws an Error whose message is fit for the job history. */
export type Pusher = (push: Obj, body: unknown, ctx: { namespace: string; topologyId: string; timeoutMs: number; signal?: AbortSignal }) => Promise<void>;

export interface PushDeps {
  db: pg.Pool;
  valueFrom?: ValueFromResolver;
}

/** Whether the spec asks for a push. */
export function wantsPush(push: unknown): push is Obj {
  return isObj(push) && ((typeof push.url === 'string' && push.url.trim() !== '') || (typeof push.connection === 'string' && push.connection.trim() !== ''));
}

/** The HTTPConnection as health's http check spells it. */
export function pushCheckSpec(push: Obj, body: string): Obj {
  if (push.awsSigV4 !== undefined) throw new Error('push.awsSigV4 is not supported');
  const spec: Obj = { name: 'push', method: 'POST', body };
  for (const k of ['url', 'connection', 'username', 'password', 'bearer', 'digest', 'ntlm', 'ntlmv2'] as const) {
    if (push[k] !== undefined && push[k] !== '') spec[k] = push[k];
  }
  if (isObj(push.tls)) spec.tlsConfig = push.tls;
  if (isObj(push.oauth)) {
    const o = push.oauth;
    spec.oauth2 = {
      tokenURL: o.tokenURL, clientID: o.clientID, clientSecret: o.clientSecret,
      ...(Array.isArray(o.scope) && { scope: o.scope }), ...(Array.isArray(o.scopes) && { scopes: o.scopes }),
      ...(isObj(o.params) && { params: o.params }),
    };
  }
  const headers = Array.isArray(push.headers) ? push.headers.filter(isObj) : [];
  spec.headers = [
    ...headers.filter((h) => typeof h.name === 'string' && h.name.toLowerCase() !== 'content-type'),
    { name: 'Content-Type', value: 'application/json' },
  ];
  return spec;
}

export function createPusher(deps: PushDeps): Pusher {
  const connections = new ConnectionResolver({ db: deps.db, valueFrom: deps.valueFrom });
  return async (push, body, ctx) => {
    const spec = pushCheckSpec(push, JSON.stringify(body));
    const out = await executeCheck(
      { id: `push:${ctx.topologyId}`, canaryId: ctx.topologyId, type: 'http', name: 'push', spec, namespace: ctx.namespace },
      { signal: ctx.signal, maxTimeoutMs: ctx.timeoutMs, defaultTimeoutMs: ctx.timeoutMs, connections, valueFrom: deps.valueFrom },
    );
    if (!out.pass) throw new Error(errorText(out.error ?? 'failed'));
  };
}

/** The root's tree as GET /api/topology?id=<root>&depth=10 answers it (hidden components too). */
export async function pushBody(db: pg.Pool, rootId: string): Promise<TopologyComponent | null> {
  const rows = await fetchSubtree(db, rootId, true, 9);
  return buildTopology(rows, TopologyQuery.parse({ id: rootId, depth: '10' })).components[0] ?? null;
}
