import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../../../config.js';
import type { UiNode } from '../../../../contracts/identity.js';
import { FACTORS, factorByMethod } from '../../factors/index.js';
import { assertNotLocked, callerSession, endFlow, MAX_FLOW_ATTEMPTS, noteFailure, requiredAssurance, type NewFlowParams } from '../engine.js';
import { KratosError } from '../errors.js';
import { label, message } from '../messages.js';
import { checkReturnTo } from '../return-to.js';
import { FlowValidationError, type FlowContext, type FlowKind } from '../types.js';

/** first: who are you; refresh: prove it again (privileged); aal2: the second factor of a signed-in person. */
export type LoginMode = 'first' | 'refresh' | 'aal2';

export function loginMode(ctx: FlowContext): LoginMode {
  if (ctx.flow.person_id && ctx.flow.requested_aal === 'aal2') return 'aal2';
  if (ctx.flow.person_id && ctx.flow.refresh) return 'refresh';
  return 'first';
}

/**
 * The parameters of a new login flow from `return_to`, `aal` and `refresh`, given the caller's session: a session at
 * aal1 whose person has a second factor gets the aal2 step (asked or not: highest available assurance), `refresh`
 * re-asks the first factor; anything else while signed in is session_already_available.
 */
export async function loginParams(db: pg.Pool, config: Config, req: FastifyRequest, q: Record<string, unknown>): Promise<NewFlowParams> {
  const returnTo = checkReturnTo(config, q.return_to);
  const refresh = q.refresh === 'true' || q.refresh === true;
  const session = callerSession(req);
  if (!session) return { returnTo, requestedAal: 'aal1', refresh: false, personId: null };
  const need = await requiredAssurance(db, session.personId);
  if (refresh) return { returnTo, requestedAal: session.aal, refresh: true, personId: session.personId };
  if (session.aal === 'aal1' && need === 'aal2') return { returnTo, requestedAal: 'aal2', refresh: false, personId: session.personId };
  if (q.aal === 'aal2' && need === 'enrol') {
    throw new KratosError(422, 'browser_location_change_required', 'Set up a second factor first.', {
      reason: 'Two-factor authentication is required: set up an authenticator app, a security key or a passkey.',
      redirectTo: '/profile-settings',
    });
  }
  throw new KratosError(400, 'session_already_available', 'A valid session was detected and thus login is not possible. Did you forget to set `?refresh=true`?', {
    reason: 'A valid session was detected and thus login is not possible.',
    redirectTo: returnTo ?? '/',
  });
}

/** The factors a login flow offers in its mode (aal2: the person's enrolled second factors). */
async function offered(ctx: FlowContext) {
  const mode = loginMode(ctx);
  const out = [];
  for (const f of FACTORS) {
    if (mode === 'aal2' ? f.aal !== 'aal2' || !(await f.enrolled(ctx.db, ctx.flow.person_id!)) : f.aal !== 'aal1') continue;
    out.push(f);
  }
  return out;
}

const signOutNode = (): UiNode => ({
  type: 'a', group: 'default', messages: [], meta: {},
  attributes: { node_type: 'a', id: 'logout', href: '/api/.ory/self-service/logout/browser', title: label(1070006) },
});

export const loginKind: FlowKind = {
  type: 'login',

  async nodes(ctx) {
    const nodes: UiNode[] = [];
    for (const f of await offered(ctx)) if (f.loginNodes) nodes.push(...(await f.loginNodes(ctx)));
    if (loginMode(ctx) === 'aal2') nodes.push(signOutNode());
    return nodes;
  },

  async submit(ctx, body) {
    const mode = loginMode(ctx);
    const method = typeof body.method === 'string' ? body.method : body.password !== undefined ? 'password' : '';
    const factor = (await offered(ctx)).find((f) => f.method === method) ?? undefined;
    if (!factor?.login || !factorByMethod(method)) throw new FlowValidationError([message(4010002)]);
    if (ctx.flow.person_id) await assertNotLocked(ctx.db, ctx.flow.person_id);
    let result;
    try {
      result = await factor.login(ctx, body);
    } catch (err) {
      if (err instanceof FlowValidationError && mode === 'aal2') {
        await noteFailure(ctx.db, ctx.req, ctx.flow.person_id, method);
        if ((await ctx.countAttempt()) >= MAX_FLOW_ATTEMPTS) {
          await endFlow(ctx.db, ctx.flow.id);
          throw new KratosError(410, 'self_service_flow_expired', 'too many wrong answers: this sign-in flow has ended', {
            reason: 'Too many wrong answers, start the sign-in again.',
          });
        }
      }
      throw err;
    }
    if (ctx.flow.person_id && result.personId !== ctx.flow.person_id) {
      throw new KratosError(403, 'security_identity_mismatch', 'the answer belongs to another identity than the session');
    }
    return { kind: 'session', personId: result.personId, aal: result.aal, method: factor.method };
  },
};
