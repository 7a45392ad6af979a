import type { UiNode } from '../../../../contracts/identity.js';
import { hashSecret, sha256 } from '../../../../lib/crypto.js';
import { notifyChange } from '../../../../lib/events.js';
import { inTransaction } from '../../../../lib/tx.js';
import { checkNewPassword } from '../../factors/password.js';
import { lockInvite, markInviteAccepted } from '../../invite-queries.js';
import { emailInUse, insertIdentity } from '../../queries.js';
import { bodyValue, type FlowContextWithQuery } from '../engine.js';
import { label, message } from '../messages.js';
import { FlowValidationError, type FlowKind } from '../types.js';

/**
 * Registration stays invite-only: the flow is opened from the invite link (?invite=<token>; only its SHA-256 is kept
 * in the flow), traits come pre-filled from the invite (the email is fixed), and a password finishes it with a
 * session, as Kratos' session hook does.
 */
interface InviteData {
  invite_hash?: string;
  email?: string;
  first?: string;
  last?: string;
}

async function inviteByHash(db: FlowContextWithQuery['db'], hash: string) {
  const { rows } = await db.query<{ email: string; first_name: string | null; last_name: string | null; expires_at: Date; accepted_at: Date | null }>(
    'SELECT email, first_name, last_name, expires_at, accepted_at FROM invites WHERE token_hash = $1', [hash],
  );
  return rows[0] ?? null;
}

const text = (name: string, group: UiNode['group'], value: string, lbl: number, lblText: string | undefined, extra: Record<string, unknown> = {}): UiNode => ({
  type: 'input', group, messages: [], meta: { label: label(lbl, lblText) },
  attributes: { node_type: 'input', name, type: 'text', value, required: true, disabled: false, ...extra } as UiNode['attributes'],
});

const invalidInvite = () => new FlowValidationError([message(4000001, { reason: 'This invitation link is invalid, used or expired: ask for a new one.' })]);

export const registrationKind: FlowKind = {
  type: 'registration',

  async init(ctx) {
    const token = (ctx as FlowContextWithQuery).query?.invite;
    if (typeof token !== 'string' || !token) return { data: {} };
    const hash = sha256(token);
    const invite = await inviteByHash(ctx.db, hash);
    if (!invite || invite.accepted_at || invite.expires_at.getTime() <= Date.now()) return { data: { invite_invalid: true } };
    const data: InviteData = { invite_hash: hash, email: invite.email, first: invite.first_name ?? '', last: invite.last_name ?? '' };
    return { data: data as Record<string, unknown> };
  },

  async nodes(ctx) {
    const d = ctx.flow.data as InviteData & { invite_invalid?: boolean };
    const nodes: UiNode[] = [];
    if (d.invite_invalid) {
      const t = message(4000001, { reason: 'This invitation link is invalid, used or expired: ask for a new one.' });
      nodes.push({ type: 'text', group: 'default', messages: [], meta: {}, attributes: { node_type: 'text', id: 'invite_invalid', text: t } });
    }
    if (!d.invite_hash) {
      nodes.push(text('invite', 'default', '', 1070004, 'Invitation code', { autocomplete: 'off' }));
    }
    nodes.push(
      { ...text('traits.email', 'password', d.email ?? '', 1070007, undefined, { type: 'email', autocomplete: 'email', disabled: Boolean(d.email) }) },
      text('traits.name.first', 'password', d.first ?? '', 1070002, undefined, { autocomplete: 'given-name' }),
      text('traits.name.last', 'password', d.last ?? '', 1070003, undefined, { autocomplete: 'family-name' }),
      {
        type: 'input', group: 'password', messages: [], meta: { label: label(1070001) },
        attributes: { node_type: 'input', name: 'password', type: 'password', required: true, disabled: false, autocomplete: 'new-password' },
      },
      {
        type: 'input', group: 'password', messages: [], meta: { label: label(1040001) },
        attributes: { node_type: 'input', name: 'method', type: 'submit', value: 'password', disabled: false },
      },
    );
    return nodes;
  },

  async submit(ctx, body) {
    const d = ctx.flow.data as InviteData;
    const method = typeof body.method === 'string' ? body.method : 'password';
    if (method !== 'password') throw new FlowValidationError([message(4010002)]);
    const token = typeof body.invite === 'string' ? body.invite : '';
    const hash = d.invite_hash ?? (token ? sha256(token) : '');
    if (!hash && (d as { invite_invalid?: boolean }).invite_invalid) throw invalidInvite();
    if (!hash) throw new FlowValidationError([message(1040002)], 'invite');
    const password = bodyValue(body, 'password');
    if (typeof password !== 'string' || !password) throw new FlowValidationError([message(4000002, { property: 'password' })], 'password');
    const first = bodyValue(body, 'traits.name.first');
    const last = bodyValue(body, 'traits.name.last');
    const preview = await inviteByHash(ctx.db, hash);
    if (!preview) throw invalidInvite();
    checkNewPassword(password, preview.email);
    // hash before the transaction: argon2 takes a while and the invite row stays locked meanwhile
    const passwordHash = await hashSecret(password);
    const personId = await inTransaction(ctx.db, async (c) => {
      const invite = await lockInvite(c, hash);
      if (!invite || invite.accepted_at || invite.expires_at.getTime() <= Date.now()) throw invalidInvite();
      if (await emailInUse(c, invite.email)) throw new FlowValidationError([message(4000007)], 'traits.email');
      const f = typeof first === 'string' && first.trim() ? first.trim().slice(0, 100) : invite.first_name ?? '';
      const l = typeof last === 'string' && last.trim() ? last.trim().slice(0, 100) : invite.last_name ?? '';
      const id = await insertIdentity(c, { email: invite.email, first: f, last: l, passwordHash, roles: [invite.role] });
      await markInviteAccepted(c, invite.id);
      await notifyChange(c, { relation: 'identities', ids: [id] });
      await notifyChange(c, { relation: 'people', ids: [id] });
      await notifyChange(c, { relation: 'invites', ids: [invite.id] });
      return id;
    });
    return { kind: 'session', personId, aal: 'aal1', method: 'password' };
  },
};
