import type { UiNode, UiText } from '../../../../contracts/identity.js';
import { notifyChange } from '../../../../lib/events.js';
import { invalidatePrincipals } from '../../../../plugins/auth.js';
import { requestEmailChange } from '../../addresses.js';
import { recordAuthEvent } from '../../events.js';
import { FACTORS, factorByMethod } from '../../factors/index.js';
import { bodyValue } from '../engine.js';
import { refreshRequired } from '../errors.js';
import { label, message } from '../messages.js';
import { selectIdentity, updateFlow, upgradeSession } from '../queries.js';
import { FlowValidationError, type FlowContext, type FlowKind } from '../types.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether the caller's session proved a factor within PRIVILEGED_SESSION_MINUTES. */
export function isPrivileged(ctx: FlowContext): boolean {
  return Boolean(ctx.session && ctx.session.authenticatedAt.getTime() > Date.now() - ctx.config.PRIVILEGED_SESSION_MINUTES * 60_000);
}

/** 403 session_refresh_required unless the session is privileged. */
export function requirePrivileged(ctx: FlowContext): void {
  if (!isPrivileged(ctx)) throw refreshRequired(ctx.flow.return_to ?? '/profile-settings');
}

const input = (name: string, type: 'text' | 'email', value: string, lbl: number, autocomplete: string): UiNode => ({
  type: 'input', group: 'profile', messages: [], meta: { label: label(lbl) },
  attributes: { node_type: 'input', name, type, value, required: true, disabled: false, autocomplete, maxlength: name === 'traits.email' ? 320 : 100 },
});

function trimmed(body: Record<string, unknown>, name: string, max: number, required: boolean): string | undefined {
  const v = bodyValue(body, name);
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || !v.trim()) throw new FlowValidationError([message(4000002, { property: name.replace(/^traits\./, '') })], name);
  if (v.trim().length > max) throw new FlowValidationError([message(4000001, { reason: `${name.replace(/^traits\./, '')} is longer than ${max} characters` })], name);
  return v.trim();
}

/** The profile group: name (any session) and email (privileged; verified first when mail is set up, part B). */
async function saveProfile(ctx: FlowContext, body: Record<string, unknown>): Promise<UiText[]> {
  const personId = ctx.flow.person_id!;
  const row = await selectIdentity(ctx.db, personId);
  if (!row) throw new FlowValidationError([message(4000001, { reason: 'this identity no longer exists' })]);
  const first = trimmed(body, 'traits.name.first', 100, false) ?? row.traits.name?.first ?? '';
  const last = trimmed(body, 'traits.name.last', 100, false) ?? row.traits.name?.last ?? '';
  const email = trimmed(body, 'traits.email', 320, false) ?? row.traits.email ?? '';
  if (!EMAIL.test(email)) throw new FlowValidationError([message(4000001, { reason: `"${email.slice(0, 100)}" is not valid "email"` })], 'traits.email');
  const emailChanged = email.toLowerCase() !== (row.traits.email ?? '').toLowerCase();
  if (emailChanged) requirePrivileged(ctx);
  const messages: UiText[] = [];
  if (first !== (row.traits.name?.first ?? '') || last !== (row.traits.name?.last ?? '')) {
    await ctx.db.query(
      `UPDATE identities SET traits = jsonb_set(traits, '{name}', $2::jsonb) WHERE id = $1`,
      [personId, JSON.stringify({ first, last })],
    );
    await notifyChange(ctx.db, { relation: 'people', ids: [personId] });
  }
  if (emailChanged) {
    const change = await requestEmailChange(ctx.db, ctx.req, personId, email, ctx.config);
    messages.push(...change.messages.filter((m) => m.id !== 1050001));
    if (!change.pending) await notifyChange(ctx.db, { relation: 'people', ids: [personId] });
    invalidatePrincipals();
  }
  await recordAuthEvent(ctx.db, ctx.req, { personId, sessionId: ctx.session?.id, type: 'profile_updated', details: { email_changed: emailChanged } });
  return messages;
}

/**
 * The settings flow of the signed-in person: profile (traits), then each factor's group (password, authenticator,
 * recovery codes, security keys, passkeys). Password, email and factor changes need a privileged session.
 */
export const settingsKind: FlowKind = {
  type: 'settings',

  async init() {
    return { state: 'show_form' };
  },

  async nodes(ctx) {
    const row = ctx.flow.person_id ? await selectIdentity(ctx.db, ctx.flow.person_id) : null;
    const nodes: UiNode[] = [
      input('traits.email', 'email', row?.traits.email ?? '', 1070007, 'email'),
      input('traits.name.first', 'text', row?.traits.name?.first ?? '', 1070002, 'given-name'),
      input('traits.name.last', 'text', row?.traits.name?.last ?? '', 1070003, 'family-name'),
      {
        type: 'input', group: 'profile', messages: [], meta: { label: label(1070005) },
        attributes: { node_type: 'input', name: 'method', type: 'submit', value: 'profile', disabled: false },
      },
    ];
    for (const f of FACTORS) if (f.settingsNodes) nodes.push(...(await f.settingsNodes(ctx)));
    return nodes;
  },

  async submit(ctx, body) {
    const method = typeof body.method === 'string' ? body.method : '';
    let messages: UiText[];
    if (method === 'profile') {
      messages = await saveProfile(ctx, body);
    } else {
      const factor = factorByMethod(method);
      if (!factor?.settings) throw new FlowValidationError([message(4010002)]);
      requirePrivileged(ctx);
      const outcome = await factor.settings(ctx, body);
      invalidatePrincipals();
      if (outcome.kind !== 'show') return outcome;
      messages = outcome.messages ?? [];
      // enrolling a second factor proved it (a confirmed code, a signed challenge): this session reaches aal2 with it,
      // rather than being sent to the second step it has just completed
      if (factor.aal === 'aal2' && ctx.session && ctx.session.aal === 'aal1' && !messages.some((m) => m.type === 'error')
        && (await factor.enrolled(ctx.db, ctx.flow.person_id!))) {
        await upgradeSession(ctx.db, ctx.session.id, 'aal2', { method: factor.method, aal: 'aal2', completed_at: new Date().toISOString() });
      }
    }
    if (!messages.some((m) => m.type === 'error')) {
      await updateFlow(ctx.db, ctx.flow.id, { state: 'success' });
      ctx.flow.state = 'success';
    }
    if (!messages.some((m) => m.id === 1050001)) messages.unshift(message(1050001));
    return { kind: 'show', messages };
  },
};
