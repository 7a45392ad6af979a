import type { UiNode, UiText } from '../../../../contracts/identity.js';
import { inTransaction } from '../../../../lib/tx.js';
import { findRecoveryAddress } from '../../addresses.js';
import { enqueueMail, mailAvailable } from '../../courier/index.js';
import { recoveryMail } from '../../courier/templates.js';
import { recordAuthEvent } from '../../events.js';
import {
  allowClient, answerFloor, checkCode, CODE_TTL_MINUTES, codeKey, codeLimits, dummyIssue, issueCodes,
  MAX_CODE_ATTEMPTS, recentCodesTo, useLinkToken, type CodePurpose,
} from '../../one-time-codes.js';
import { createFlow, expiredError, openSession } from '../engine.js';
import { flowRateLimited } from '../errors.js';
import { label, message } from '../messages.js';
import { expireFlow, updateFlow, type FlowRow } from '../queries.js';
import { FlowValidationError, type FlowContext, type FlowKind, type FlowOutcome } from '../types.js';

/**
 * Account recovery (Kratos' `code` method, its mail also carrying a link): choose_method (an email) → sent_email (a
 * code, 15 minutes, 5 tries) → passed_challenge: a privileged session and a new settings flow to set a password.
 * Only a verified address of an active person gets a mail; any other gets the same answer, after the same time.
 */

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** Node builders shared with verification. */
export function emailInput(value: string): UiNode {
  return {
    type: 'input', group: 'code', messages: [], meta: { label: label(1070007, 'Email') },
    attributes: { node_type: 'input', name: 'email', type: 'email', value, required: true, autocomplete: 'email', disabled: false },
  };
}

export function codeInputs(email: string, codeLabel: UiText): UiNode[] {
  return [
    {
      type: 'input', group: 'code', messages: [], meta: { label: codeLabel },
      attributes: {
        node_type: 'input', name: 'code', type: 'text', required: true, pattern: '[0-9]+', maxlength: 6,
        autocomplete: 'one-time-code', disabled: false,
      },
    },
    hidden('method', 'code'),
    submit('method', 'code', label(1070009, 'Continue')),
    // Kratos' resend: the address again, as a second submit button
    submit('email', email, label(1070008, 'Resend code')),
  ];
}

const hidden = (name: string, value: string): UiNode => ({
  type: 'input', group: 'code', messages: [], meta: {},
  attributes: { node_type: 'input', name, type: 'hidden', value, disabled: false },
});

export const submit = (name: string, value: string, text: UiText): UiNode => ({
  type: 'input', group: 'code', messages: [], meta: { label: text },
  attributes: { node_type: 'input', name, type: 'submit', value, disabled: false },
});

export function textNode(id: string, text: UiText): UiNode {
  return { type: 'text', group: 'default', messages: [], meta: {}, attributes: { node_type: 'text', id, text } };
}

/** What a flow says while no mail server is configured. */
export const mailUnavailable = (what: 'recovery' | 'verification'): UiText => message(
  4000001, undefined,
  what === 'recovery'
    ? 'Account recovery is not available: this console has no mail server configured. Ask an administrator to reset your password.'
    : 'Email verification is not available: this console has no mail server configured. Ask an administrator for help.',
);

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** Reads the address of a request for a mail; a bad one is a 400 at the email field. */
export function submittedEmail(body: Record<string, unknown>): string {
  const email = str(body.email);
  if (!email) throw new FlowValidationError([message(4000002, { property: 'email' })], 'email');
  if (email.length > 320 || !EMAIL.test(email)) {
    throw new FlowValidationError([message(4000001, { reason: `"${email.slice(0, 100)}" is not valid "email"` })], 'email');
  }
  return email;
}

/** 429 (Kratos' body, Retry-After) past the per-client limit of requests for a mail (codeLimits, a minute). */
export function limitClient(purpose: CodePurpose, ctx: Pick<FlowContext, 'req' | 'reply'>): void {
  if (!allowClient(purpose, ctx.req.ip)) {
    ctx.reply.header('retry-after', '60');
    throw flowRateLimited(60, `${purpose} requests`);
  }
}

/** A wrong code: counted in the flow; the fifth ends it (410 with a new flow's id), else 400 with `wrong`. */
export async function wrongCode(ctx: FlowContext, wrong: UiText): Promise<never> {
  const attempts = await ctx.countAttempt();
  if (attempts >= MAX_CODE_ATTEMPTS) {
    await expireFlow(ctx.db, ctx.flow.id);
    throw await expiredError(ctx.db, ctx.config, ctx.req, ctx.reply, { ...ctx.flow, expires_at: new Date() } as FlowRow);
  }
  throw new FlowValidationError([wrong], 'code');
}

async function sendCode(ctx: FlowContext, body: Record<string, unknown>): Promise<FlowOutcome> {
  const start = Date.now();
  limitClient('recovery', ctx);
  const email = submittedEmail(body);
  const { db, config, flow, req } = ctx;
  const key = await codeKey(db, config);
  const found = await findRecoveryAddress(db, email);
  const allowed = found ? (await recentCodesTo(db, 'recovery', found.value, 60)) < codeLimits.mailsPerAddressPerHour : false;
  await inTransaction(db, async (c) => {
    if (found && allowed) {
      const { code, token } = await issueCodes(c, key, { flowId: flow.id, personId: found.personId, purpose: 'recovery', address: found.value });
      const link = `${config.publicUrl}/api/.ory/self-service/recovery?flow=${flow.id}&token=${encodeURIComponent(token)}`;
      await enqueueMail(c, config, recoveryMail(found.value, code, link, CODE_TTL_MINUTES));
      await recordAuthEvent(c, req, { personId: found.personId, type: 'recovery_requested', method: 'code' });
    } else {
      // the same hashing and a comparable write, so the answer's timing says nothing about the address
      dummyIssue(key, flow.id);
      await recordAuthEvent(c, req, {
        personId: found?.personId ?? null, type: 'recovery_requested', method: 'code', success: false,
        details: { reason: found ? 'mail_limit' : 'unknown_or_unverified_address' },
      });
    }
    await updateFlow(c, flow.id, { state: 'sent_email', data: { ...flow.data, email } });
  });
  flow.state = 'sent_email';
  flow.data = { ...flow.data, email };
  await answerFloor(start);
  return { kind: 'show', messages: [message(1060003)] };
}

/** The code or link was right: a privileged session, then a new settings flow to set a password (Kratos' 422). */
async function recovered(ctx: FlowContext, personId: string, method: 'code_recovery' | 'link_recovery'): Promise<FlowOutcome> {
  const { db, config, req, reply, flow } = ctx;
  await updateFlow(db, flow.id, { state: 'passed_challenge', messages: [] });
  await recordAuthEvent(db, req, { personId, type: 'recovered', method });
  const opened = await openSession(ctx, { kind: 'session', personId, aal: 'aal1', method });
  const settings = await createFlow(db, config, req, reply, 'settings', {
    personId, returnTo: flow.return_to, requestedAal: null, refresh: false,
  });
  await db.query(`UPDATE auth_flows SET data = data || $2::jsonb WHERE id = $1`, [settings.id, { recovery_flow: flow.id }]);
  await updateFlow(db, settings.id, {
    messages: [message(1060001, undefined,
      `You successfully recovered your account. Please change your password or set up an alternative login method within the next ${config.PRIVILEGED_SESSION_MINUTES} minutes.`)],
  });
  const page = `/profile-settings?flow=${settings.id}`;
  // a person with a second factor still proves it before the settings flow opens (recovery does not skip it)
  const to = opened.next?.startsWith('/login') ? `/login?aal=aal2&return_to=${encodeURIComponent(page)}` : page;
  return { kind: 'redirect', to };
}

export const recoveryKind: FlowKind = {
  type: 'recovery',

  async init() {
    return { state: 'choose_method' };
  },

  async nodes(ctx) {
    if (!(await mailAvailable(ctx.db, ctx.config))) return [textNode('recovery_unavailable', mailUnavailable('recovery'))];
    const email = str(ctx.flow.data.email);
    if (ctx.flow.state === 'sent_email') return codeInputs(email, label(1070010, 'Recovery code'));
    if (ctx.flow.state === 'passed_challenge') return [];
    return [emailInput(email), submit('method', 'code', label(1070005, 'Submit'))];
  },

  async submit(ctx, body) {
    if (!(await mailAvailable(ctx.db, ctx.config))) throw new FlowValidationError([mailUnavailable('recovery')]);
    const { db, config, flow } = ctx;
    if (body.method === 'link') {
      const token = str(body.token);
      const used = token ? await inTransaction(db, (c) => useLinkToken(c, 'recovery', token, flow.id)) : null;
      if (!used) throw new FlowValidationError([message(4060004)]);
      return recovered(ctx, used.personId, 'link_recovery');
    }
    // used: a replayed code or another request on a finished flow changes nothing
    if (flow.state === 'passed_challenge') throw new FlowValidationError([message(4060006)]);
    const code = str(body.code);
    if (code && flow.state === 'sent_email') {
      const key = await codeKey(db, config);
      const r = await inTransaction(db, (c) => checkCode(c, key, flow.id, 'recovery', code));
      if (!r.ok) return wrongCode(ctx, message(4060006));
      return recovered(ctx, r.personId, 'code_recovery');
    }
    return sendCode(ctx, body);
  },
};
