import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../../config.js';
import type { Aal, FlowType, Identity, KratosSession, SelfServiceFlow, UiNode, UiText } from '../../../contracts/identity.js';
import { randomToken, sha256 } from '../../../lib/crypto.js';
import { ApiError } from '../../../lib/errors.js';
import { EVENTS_CHANNEL, notifyChange } from '../../../lib/events.js';
import { forgetSessionPrincipal, SESSION_COOKIE } from '../../../plugins/auth.js';
import { setSessionCookie } from '../cookies.js';
import { recordAuthEvent } from '../events.js';
import { FACTORS } from '../factors/index.js';
import { deleteSessionByHash, propertyMap, touchLastLogin } from '../queries.js';
import { createSession } from '../sessions.js';
import { ensureCsrfCookie } from './csrf.js';
import { KratosError } from './errors.js';
import { kindOf } from './kinds/index.js';
import {
  expireFlow, IDENTITY_ADDRESSES, incrementAttempts, insertBuiltFlow, insertFlow, lockedUntil, mergeFlowData, recentFailures,
  selectIdentity, selectSession, SESSION_COLUMNS, setNewSessionAuth, upgradeSession, type FlowRow, type IdentityRow,
  type SessionRow,
} from './queries.js';
import { toFlowJson, toIdentity, toKratosSession, toStored } from './store.js';
import type { FlowContext, FlowOutcome, StoredFlow } from './types.js';

/** Wrong second-factor answers that end a flow; failures per person that lock sign-in, and for how long. */
export const MAX_FLOW_ATTEMPTS = 5;
export const LOCK_FAILURES = 10;
export const LOCK_MINUTES = 15;

/** The web page that shows each flow type. */
export const FLOW_PAGES: Record<FlowType, string> = {
  login: '/login', registration: '/registration', recovery: '/recovery', verification: '/verification',
  settings: '/profile-settings',
};

/** The caller's browser session as flows see it (null for token callers and anonymous ones). */
export function callerSession(req: FastifyRequest): FlowContext['session'] & { personId: string } | null {
  const p = req.principal;
  if (!p || p.via !== 'session' || !p.sessionId) return null;
  return { id: p.sessionId, aal: p.aal ?? 'aal1', authenticatedAt: p.authenticatedAt ?? new Date(0), personId: p.id };
}

/**
 * What assurance a person must reach: 'aal2' when any aal2 factor is enrolled, 'enrol' when the property
 * auth.mfa.required is on and none is (they may only reach the settings flow), else 'aal1'.
 */
export async function requiredAssurance(db: pg.Pool | pg.PoolClient, personId: string): Promise<'aal1' | 'aal2' | 'enrol'> {
  const columns = assuranceColumns('$1');
  if (columns) {
    // one statement for every factor and the property (the principal asks this at every cache miss of an aal1 session)
    const { rows } = await db.query<{ needs_aal2: boolean; mfa_required: boolean }>({
      name: 'auth-assurance', text: `SELECT ${columns}`, values: [personId],
    });
    return assuranceOf(rows[0]);
  }
  for (const f of FACTORS) {
    if (f.aal === 'aal2' && (await f.enrolled(db, personId))) return 'aal2';
  }
  const props = await propertyMap(db);
  return props['auth.mfa.required'] === 'true' ? 'enrol' : 'aal1';
}

let assuranceSql: string | null | undefined;

/**
 * requiredAssurance's question as two SQL columns over `person`: `needs_aal2` (an aal2 factor is enrolled) and
 * `mfa_required` (property auth.mfa.required); null when a factor of the registry cannot say it in SQL.
 */
export function assuranceColumns(person: '$1' | '$2'): string | null {
  if (assuranceSql === undefined) {
    const aal2 = FACTORS.filter((f) => f.aal === 'aal2');
    assuranceSql = aal2.some((f) => !f.enrolledSql)
      ? null
      : `(${aal2.map((f) => `(${f.enrolledSql!('$PERSON', FACTORS)})`).join(' OR ') || 'false'}) AS needs_aal2,
        EXISTS (SELECT 1 FROM properties WHERE name = 'auth.mfa.required' AND value = 'true' AND deleted_at IS NULL) AS mfa_required`;
  }
  return assuranceSql && assuranceSql.replaceAll('$PERSON', person);
}

const assuranceOf = (r: { needs_aal2: boolean; mfa_required: boolean }): 'aal1' | 'aal2' | 'enrol' =>
  r.needs_aal2 ? 'aal2' : r.mfa_required ? 'enrol' : 'aal1';

/** Builds the context a kind or factor works in. */
export function flowContext(db: pg.Pool, config: Config, req: FastifyRequest, reply: FastifyReply, flow: StoredFlow): FlowContext {
  const session = callerSession(req);
  return {
    db, config, req, reply, flow,
    personId: flow.person_id ?? null,
    session: session && { id: session.id, aal: session.aal, authenticatedAt: session.authenticatedAt },
    async saveData(patch) {
      flow.data = await mergeFlowData(db, flow.id, patch);
    },
    async countAttempt() {
      flow.attempts = await incrementAttempts(db, flow.id);
      return flow.attempts;
    },
  };
}

export interface NewFlowParams {
  returnTo: string | null;
  requestedAal: Aal | null;
  refresh: boolean;
  personId: string | null;
  query?: Record<string, unknown>;
}

/**
 * Creates a flow (CSRF cookie, row, the kind's init) and returns its row. With `render` (a JSON client), a kind
 * without init is built and rendered in memory first (what its factors save while rendering, e.g. a passkey
 * challenge, goes into the row) and stored with one insert; the rendered flow comes back as `rendered`.
 */
export async function createFlow(
  db: pg.Pool, config: Config, req: FastifyRequest, reply: FastifyReply, type: FlowType, p: NewFlowParams,
  opts: { render?: boolean } = {},
): Promise<FlowRow & { csrfToken: string; rendered?: SelfServiceFlow }> {
  const csrf = ensureCsrfCookie(req, reply, config);
  const session = callerSession(req);
  if (opts.render && !kindOf(type).init) {
    const now = new Date();
    const row: FlowRow = {
      id: randomUUID(), type, state: null, person_id: p.personId, session_id: session?.id ?? null, csrf_hash: sha256(csrf),
      return_to: p.returnTo, requested_aal: p.requestedAal, refresh: p.refresh, data: {}, messages: [], attempts: 0,
      request_url: `${config.publicUrl}${req.url}`, created_at: now, updated_at: now,
      expires_at: new Date(now.getTime() + config.AUTH_FLOW_MINUTES * 60_000),
    };
    const flow = toStored(row);
    const ctx: FlowContext = {
      ...flowContext(db, config, req, reply, flow),
      async saveData(patch) {
        flow.data = { ...flow.data, ...patch };
      },
    };
    const rendered = await renderFlow(ctx, csrf, []);
    row.data = flow.data;
    await insertBuiltFlow(db, row);
    return Object.assign(row, { csrfToken: csrf, rendered });
  }
  const row = await insertFlow(db, {
    type, personId: p.personId, sessionId: session?.id ?? null, csrfHash: sha256(csrf), returnTo: p.returnTo,
    requestedAal: p.requestedAal, refresh: p.refresh, minutes: config.AUTH_FLOW_MINUTES,
    requestUrl: `${config.publicUrl}${req.url}`,
  });
  const kind = kindOf(type);
  if (kind.init) {
    const flow = toStored(row);
    const ctx = flowContext(db, config, req, reply, flow);
    (ctx as FlowContextWithQuery).query = p.query ?? {};
    const init = await kind.init(ctx);
    if (init.state !== undefined || init.data) {
      await db.query('UPDATE auth_flows SET state = coalesce($2, state), data = data || $3::jsonb WHERE id = $1', [
        row.id, init.state ?? null, init.data ?? {},
      ]);
      row.state = init.state ?? row.state;
      row.data = { ...row.data, ...(flow.data ?? {}), ...(init.data ?? {}) };
    }
  }
  return Object.assign(row, { csrfToken: csrf });
}

/** The query string of the flow's creating request, for kinds' init (e.g. registration's ?invite=). */
export interface FlowContextWithQuery extends FlowContext {
  query?: Record<string, unknown>;
}

/** A message pinned to a field node (by input name), or to the flow when field is absent. */
export type StoredMessage = UiText & { field?: string };

/** Renders a flow: the kind's nodes plus csrf_token, messages placed at their fields, submitted values kept. */
export async function renderFlow(
  ctx: FlowContext, csrfToken: string, messages: StoredMessage[], values: Record<string, unknown> = {},
): Promise<SelfServiceFlow> {
  const kind = kindOf(ctx.flow.type);
  const nodes: UiNode[] = [csrfNode(csrfToken), ...(await kind.nodes(ctx))];
  const top: UiText[] = [];
  for (const m of messages) {
    const { field, ...text } = m;
    const node = field ? nodes.find((n) => n.attributes.node_type === 'input' && n.attributes.name === field) : undefined;
    if (node) node.messages.push(text);
    else top.push(text);
  }
  for (const n of nodes) {
    const a = n.attributes;
    if (a.node_type !== 'input' || a.type === 'password' || a.type === 'hidden' || a.type === 'submit') continue;
    const v = bodyValue(values, a.name);
    if (typeof v === 'string') a.value = v;
  }
  let identity: Identity | undefined;
  if (ctx.flow.type === 'settings' && ctx.flow.person_id) {
    const row = await selectIdentity(ctx.db, ctx.flow.person_id);
    if (row) identity = toIdentity(ctx.config, row);
  }
  return toFlowJson(ctx.config, ctx.flow, nodes, top, identity);
}

/** A submitted field by its node name: a dotted key (plain forms) or the nested path (JSON). */
export function bodyValue(values: Record<string, unknown>, name: string): unknown {
  if (name in values) return values[name];
  return name.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), values);
}

export function csrfNode(token: string): UiNode {
  return {
    type: 'input', group: 'default', messages: [], meta: {},
    attributes: { node_type: 'input', name: 'csrf_token', type: 'hidden', value: token, required: true, disabled: false },
  };
}

/** 410 for an expired flow, naming a new flow of the same kind in details.use_flow_id. */
export async function expiredError(
  db: pg.Pool, config: Config, req: FastifyRequest, reply: FastifyReply, row: FlowRow,
): Promise<KratosError> {
  const fresh = await createFlow(db, config, req, reply, row.type, {
    returnTo: row.return_to, requestedAal: row.requested_aal, refresh: row.refresh, personId: row.person_id,
  });
  const minutes = Math.max(0, Math.round((Date.now() - row.expires_at.getTime()) / 60_000));
  return new KratosError(410, 'self_service_flow_expired', 'self-service flow expired', {
    reason: `The self-service flow expired ${minutes} minutes ago, initialize a new one.`,
    details: { use_flow_id: fresh.id, since: minutes * 60_000_000_000, expired_at: row.expires_at.toISOString() },
  });
}

/** Ends a flow after too many wrong answers. */
export async function endFlow(db: pg.Pool, flowId: string): Promise<void> {
  await expireFlow(db, flowId);
}

/** 429 while a person is locked out (10 failed answers in 15 minutes lock sign-in for 15 minutes). */
export async function assertNotLocked(db: pg.Pool | pg.PoolClient, personId: string): Promise<void> {
  assertUnlocked(await lockedUntil(db, personId, LOCK_MINUTES));
}

/** 429 when `until` (a lockout's end, as lockedUntil or the login candidates' locked_until give it) is ahead. */
export function assertUnlocked(until: Date | null): void {
  if (until && until.getTime() > Date.now()) {
    const secs = Math.ceil((until.getTime() - Date.now()) / 1000);
    throw new ApiError(429, 'rate_limited', `too many failed sign-in attempts, retry in ${Math.ceil(secs / 60)} minutes`, {
      retry_after_seconds: secs,
    });
  }
}

/** Records a failed answer; the tenth in 15 minutes locks the person (audited as `locked`). */
export async function noteFailure(
  db: pg.Pool, req: FastifyRequest, personId: string | null, method: string, details: Record<string, unknown> = {},
): Promise<void> {
  await recordAuthEvent(db, req, { personId, type: 'login_failed', method, success: false, details });
  if (!personId) return;
  if ((await recentFailures(db, personId, LOCK_MINUTES)) >= LOCK_FAILURES && !(await lockedUntil(db, personId, LOCK_MINUTES))) {
    await recordAuthEvent(db, req, { personId, type: 'locked', method, success: false, details: { minutes: LOCK_MINUTES } });
  }
}

export interface OpenedSession {
  session: KratosSession;
  identity: Identity;
  /** Where the browser goes next when more is needed: the second factor, or enrolment (mfa.required). */
  next?: string;
}

/**
 * Opens a session for a proven factor, or upgrades/refreshes the caller's own (same person): aal, authenticated_at
 * and methods. A browser's other person's session is replaced. Sets the cookie and audits the sign-in.
 */
export async function openSession(
  ctx: FlowContext, outcome: Extract<FlowOutcome, { kind: 'session' }>, opts: { endFlow?: boolean } = {},
): Promise<OpenedSession> {
  const { db, config, req } = ctx;
  const completed = { method: outcome.method, aal: outcome.aal, completed_at: new Date().toISOString() };
  const own = callerSession(req);
  if (!own || own.personId !== outcome.personId) {
    const columns = assuranceColumns('$2');
    if (columns) return newSession(ctx, outcome, completed, columns, opts.endFlow ?? false);
  }
  let sessionId: string;
  if (own && own.personId === outcome.personId) {
    await upgradeSession(db, own.id, outcome.aal, completed);
    sessionId = own.id;
    const cookie = req.cookies?.[SESSION_COOKIE];
    if (cookie) forgetSessionPrincipal(sha256(cookie));
  } else {
    // a registry factor without enrolledSql: the same steps one statement each
    const previous = req.cookies?.[SESSION_COOKIE];
    if (previous) {
      await deleteSessionByHash(db, sha256(previous));
      forgetSessionPrincipal(sha256(previous));
    }
    const s = await createSession(db, outcome.personId, config.SESSION_TTL_HOURS, {
      ip: req.ip, userAgent: req.headers['user-agent'],
    });
    sessionId = await setNewSessionAuth(db, sha256(s.token), outcome.aal, completed);
    setSessionCookie(ctx.reply, config, s.token);
  }
  await touchLastLogin(db, outcome.personId);
  const row = (await selectSession(db, sessionId))!;
  const identityRow = (await selectIdentity(db, outcome.personId))!;
  const identity = toIdentity(config, identityRow);
  await recordAuthEvent(db, req, {
    personId: outcome.personId, sessionId, type: 'login', method: outcome.method, aal: row.aal,
    details: { flow: ctx.flow.type, ...(ctx.flow.refresh && { refresh: true }) },
  });
  await notifyChange(db, { relation: 'sessions', ids: [sessionId] }).catch(() => undefined);
  if (opts.endFlow) await expireFlow(db, ctx.flow.id);
  const next = row.aal === 'aal1' ? nextStep(ctx, await requiredAssurance(db, outcome.personId)) : undefined;
  return { session: toKratosSession(row, identity), identity, next };
}

/** Where an aal1 session goes next when its person must reach more: the second factor, or enrolment. */
function nextStep(ctx: FlowContext, need: 'aal1' | 'aal2' | 'enrol'): string | undefined {
  if (need === 'aal2') return `/login?aal=aal2&return_to=${encodeURIComponent(ctx.flow.return_to ?? '/')}`;
  if (need === 'enrol') return '/profile-settings';
  return undefined;
}

/**
 * A new session in one statement (the sign-in hot path): the browser's previous session deleted, the session
 * inserted with its assurance level and method, last_login, the audit event, the flow ended when asked, the change
 * published to every replica (at commit), and back the session, its identity and what assurance the person owes.
 */
const newSessionSql = (assurance: string) => `WITH
  previous AS (DELETE FROM sessions WHERE $11::text IS NOT NULL AND token_hash = $11 RETURNING id),
  s AS (INSERT INTO sessions (person_id, token_hash, expires_at, ip, user_agent, aal, authenticated_at, methods)
        VALUES ($2, $1, now() + make_interval(secs => $3), $4, $5, $6, now(), $7::jsonb) RETURNING ${SESSION_COLUMNS}),
  touched AS (UPDATE people SET last_login = now() WHERE id = $2 RETURNING id),
  event AS (INSERT INTO auth_events (person_id, session_id, type, method, aal, success, ip, user_agent, details)
            SELECT $2, s.id, 'login', $8, s.aal, true, $4, $5, $9 FROM s RETURNING id),
  ended AS (UPDATE auth_flows SET expires_at = least(expires_at, now() - interval '1 second') WHERE id = $10 AND $12
            RETURNING id)
SELECT s.*, i.traits, i.state, i.created_at AS identity_created_at, i.updated_at AS identity_updated_at,
  ${IDENTITY_ADDRESSES} AS addresses, ${assurance},
  pg_notify($13, json_build_object('type', 'change', 'relation', 'sessions', 'at', $14::text, 'ids', json_build_array(s.id))::text)
FROM s JOIN identities i ON i.id = s.person_id`;

async function newSession(
  ctx: FlowContext, outcome: Extract<FlowOutcome, { kind: 'session' }>,
  completed: { method: string; aal: string; completed_at: string }, assurance: string, endFlow: boolean,
): Promise<OpenedSession> {
  const { db, config, req } = ctx;
  const previous = req.cookies?.[SESSION_COOKIE];
  const previousHash = previous ? sha256(previous) : null;
  const token = randomToken(32);
  const { rows } = await db.query<SessionRow & IdentityRow & {
    traits: IdentityRow['traits']; identity_created_at: Date; identity_updated_at: Date; needs_aal2: boolean; mfa_required: boolean;
  }>({
    name: 'auth-new-session',
    text: newSessionSql(assurance),
    values: [
      sha256(token), outcome.personId, config.SESSION_TTL_HOURS * 3600, req.ip ?? null,
      req.headers['user-agent']?.slice(0, 500) ?? null, outcome.aal, JSON.stringify([completed]), outcome.method,
      { flow: ctx.flow.type, ...(ctx.flow.refresh && { refresh: true }) }, ctx.flow.id, previousHash, endFlow,
      EVENTS_CHANNEL, new Date().toISOString(),
    ],
  });
  if (previousHash) forgetSessionPrincipal(previousHash);
  const r = rows[0];
  if (!r) throw new ApiError(401, 'unauthorized', 'this identity can no longer sign in');
  setSessionCookie(ctx.reply, config, token);
  const row: SessionRow = {
    id: r.id, person_id: r.person_id, created_at: r.created_at, last_seen_at: r.last_seen_at, expires_at: r.expires_at,
    ip: r.ip, user_agent: r.user_agent, aal: r.aal, authenticated_at: r.authenticated_at, methods: r.methods,
    organization_id: r.organization_id,
  };
  const identity = toIdentity(config, {
    id: r.person_id, traits: r.traits, state: r.state, created_at: r.identity_created_at, updated_at: r.identity_updated_at,
    addresses: r.addresses,
  });
  const next = row.aal === 'aal1' ? nextStep(ctx, assuranceOf(r)) : undefined;
  return { session: toKratosSession(row, identity), identity, next };
}

/** Kratos' `continue_with` for a browser that must go on somewhere. */
export const continueWith = (to: string) => [{ action: 'redirect_browser_to', redirect_browser_to: to }];
