import type { PoolClient } from 'pg';
import { inTransaction } from '../../../../lib/tx.js';
import { findAddress, verificationLink, verifyAddress } from '../../addresses.js';
import { enqueueMail, mailAvailable } from '../../courier/index.js';
import { verificationMail } from '../../courier/templates.js';
import { recordAuthEvent } from '../../events.js';
import {
  answerFloor, checkCode, CODE_TTL_MINUTES, codeKey, codeLimits, dummyIssue, issueCodes, recentCodesTo, useLinkToken,
} from '../../one-time-codes.js';
import { label, message } from '../messages.js';
import { updateFlow } from '../queries.js';
import { FlowValidationError, type FlowContext, type FlowKind, type FlowOutcome } from '../types.js';
import {
  codeInputs, emailInput, limitClient, mailUnavailable, submit, submittedEmail, textNode, wrongCode,
} from './recovery.js';

/**
 * Email verification (code and link in one mail): choose_method → sent_email → passed_challenge. A pending new
 * email (requestEmailChange) becomes the identity's email here, and the old address gets a notice. An address no
 * person has gets the same answer and no mail.
 */

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

async function sendCode(ctx: FlowContext, body: Record<string, unknown>): Promise<FlowOutcome> {
  const start = Date.now();
  limitClient('verification', ctx);
  const email = submittedEmail(body);
  const { db, config, flow, req } = ctx;
  const key = await codeKey(db, config);
  // signed in: only the caller's own addresses; else any live person's
  const found = await findAddress(db, email, ctx.personId);
  const allowed = found ? (await recentCodesTo(db, 'verification', found.value, 60)) < codeLimits.mailsPerAddressPerHour : false;
  await inTransaction(db, async (c) => {
    if (found && allowed) {
      const { code, token } = await issueCodes(c, key, { flowId: flow.id, personId: found.person_id, purpose: 'verification', address: found.value });
      await enqueueMail(c, config, verificationMail(found.value, code, verificationLink(config, flow.id, token), CODE_TTL_MINUTES));
      if (!found.verified) {
        await c.query(`UPDATE identity_verifiable_addresses SET status = 'sent', updated_at = now() WHERE id = $1`, [found.id]);
      }
      await recordAuthEvent(c, req, { personId: found.person_id, type: 'verification_requested', method: 'code' });
    } else {
      dummyIssue(key, flow.id);
      await recordAuthEvent(c, req, {
        personId: found?.person_id ?? null, type: 'verification_requested', method: 'code', success: false,
        details: { reason: found ? 'mail_limit' : 'unknown_address' },
      });
    }
    await updateFlow(c, flow.id, { state: 'sent_email', data: { ...flow.data, email } });
  });
  flow.state = 'sent_email';
  flow.data = { ...flow.data, email };
  await answerFloor(start);
  return { kind: 'show', messages: [message(1080003)] };
}

/** Marks the address verified (and applies a pending email change) with the code's use, in one transaction. */
async function verifyWith<T extends { personId: string; address: string }>(
  ctx: FlowContext, use: (c: PoolClient) => Promise<T | null | { ok: false }>,
): Promise<T | { ok: false } | null> {
  return inTransaction(ctx.db, async (c) => {
    const used = await use(c);
    if (!used || !('personId' in used)) return used;
    await verifyAddress(c, ctx.config, ctx.req, used.personId, used.address);
    await updateFlow(c, ctx.flow.id, { state: 'passed_challenge' });
    ctx.flow.state = 'passed_challenge';
    return used;
  });
}

const done = (): FlowOutcome => ({ kind: 'show', messages: [message(1080002)] });

export const verificationKind: FlowKind = {
  type: 'verification',

  async init(ctx) {
    // signed in with an unverified address (a pending email change): offer it
    if (!ctx.personId) return { state: 'choose_method' };
    const { rows } = await ctx.db.query<{ value: string }>(
      `SELECT value FROM identity_verifiable_addresses WHERE person_id = $1 AND NOT verified ORDER BY updated_at DESC LIMIT 1`,
      [ctx.personId],
    );
    return { state: 'choose_method', ...(rows[0] && { data: { email: rows[0].value } }) };
  },

  async nodes(ctx) {
    if (!(await mailAvailable(ctx.db, ctx.config))) return [textNode('verification_unavailable', mailUnavailable('verification'))];
    const email = str(ctx.flow.data.email);
    if (ctx.flow.state === 'sent_email') return codeInputs(email, label(1070011, 'Verification code'));
    if (ctx.flow.state === 'passed_challenge') return [];
    return [emailInput(email), submit('method', 'code', label(1070005, 'Submit'))];
  },

  async submit(ctx, body) {
    if (!(await mailAvailable(ctx.db, ctx.config))) throw new FlowValidationError([mailUnavailable('verification')]);
    const { db, config, flow } = ctx;
    if (body.method === 'link') {
      const token = str(body.token);
      const used = token ? await verifyWith(ctx, (c) => useLinkToken(c, 'verification', token, flow.id)) : null;
      if (!used) throw new FlowValidationError([message(4070001)]);
      return done();
    }
    if (flow.state === 'passed_challenge') throw new FlowValidationError([message(4070006)]);
    const code = str(body.code);
    if (code && flow.state === 'sent_email') {
      const key = await codeKey(db, config);
      const r = await verifyWith(ctx, async (c) => {
        const check = await checkCode(c, key, flow.id, 'verification', code);
        return check.ok ? check : { ok: false as const };
      });
      if (!r || !('personId' in r)) return wrongCode(ctx, message(4070006));
      return done();
    }
    return sendCode(ctx, body);
  },
};
