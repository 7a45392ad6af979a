import { randomUUID } from 'node:crypto';
import type { UiNode } from '../../../../contracts/identity.js';
import { hashSecret, sha256 } from '../../../../lib/crypto.js';
import { notifyChange } from '../../../../lib/events.js';
import { inTransaction } from '../../../../lib/tx.js';
import { checkNewPassword } from '../../factors/password.js';
import { passkeyRegistrationNodes, passkeysAvailable, verifyPasskeyRegistration } from '../../factors/passkey-registration.js';
import { TEXT as WEBAUTHN_TEXT } from '../../factors/webauthn-common.js';
import { insertCredential } from '../../factors/webauthn-queries.js';
import { recordAuthEvent } from '../../events.js';
import { lockInvite, markInviteAccepted } from '../../invite-queries.js';
import { emailInUse, insertIdentity } from '../../queries.js';
import { bodyValue, type FlowContextWithQuery } from '../engine.js';
import { label, message } from '../messages.js';
import { FlowValidationError, type FlowKind } from '../types.js';

/**
 * Registration stays invite-only: the flow is opened from the invite link (?invite=<token>; only its SHA-256 is kept
 * in the flow), traits come pre-filled from the invite (the email is fixed), and a password, or a passkey (Kratos'
 * `passkey` method, when browsers can use WebAuthn here), finishes it with a session, as Kratos' session hook does.
 * A person who signs up with a passkey has no password (they can set one in settings; the last passkey stays).
 */
interface InviteData {
  invite_hash?: string;
  /** the id the identity will get: the passkey's user handle, fixed before the ceremony */
  person_id?: string;
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
    const data: InviteData = {
      invite_hash: hash, email: invite.email, first: invite.first_name ?? '', last: invite.last_name ?? '', person_id: randomUUID(),
    };
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
    if (d.invite_hash && d.email && passkeysAvailable(ctx.config)) {
      if (!d.person_id) await ctx.saveData({ person_id: (d.person_id = randomUUID()) });
      const name = [d.first, d.last].filter(Boolean).join(' ');
      nodes.push(...(await passkeyRegistrationNodes(ctx, { id: d.person_id, email: d.email, name })));
    }
    return nodes;
  },

  async submit(ctx, body) {
    const d = ctx.flow.data as InviteData;
    const method = typeof body.method === 'string' ? body.method : 'password';
    if (method !== 'password' && method !== 'passkey') throw new FlowValidationError([message(4010002)]);
    const token = typeof body.invite === 'string' ? body.invite : '';
    const hash = d.invite_hash ?? (token ? sha256(token) : '');
    if (!hash && (d as { invite_invalid?: boolean }).invite_invalid) throw invalidInvite();
    if (!hash) throw new FlowValidationError([message(1040002)], 'invite');
    if (method === 'passkey') return registerWithPasskey(ctx, body, d, hash);
    const password = bodyValue(body, 'password');
    if (typeof password !== 'string' || !password) throw new FlowValidationError([message(4000002, { property: 'password' })], 'password');
    const first = bodyValue(body, 'traits.name.first');
    const last = bodyValue(body, 'traits.name.last');
    const preview = await inviteByHash(ctx.db, hash);
    if (!preview) throw invalidInvite();
    checkNewPassword(password, preview.email);
    // hash before the transaction: argon2 takes a while and the invite row stays locked meanwhile
    const passwordHash = await hashSecret(password);
    const personId = await acceptInvite(ctx, hash, first, last, (c, invite, f, l) =>
      insertIdentity(c, { email: invite.email, first: f, last: l, passwordHash, roles: [invite.role] }));
    return { kind: 'session', personId, aal: 'aal1', method: 'password' };
  },
};

type Client = Parameters<Parameters<typeof inTransaction>[1]>[0];
type LockedInvite = NonNullable<Awaited<ReturnType<typeof lockInvite>>>;

/** Takes the invite (locked, once) and creates the identity with `create`; the invite's names unless others were given. */
async function acceptInvite(
  ctx: FlowContextWithQuery | Parameters<FlowKind['submit']>[0], hash: string, first: unknown, last: unknown,
  create: (c: Client, invite: LockedInvite, first: string, last: string) => Promise<string>,
): Promise<string> {
  return inTransaction(ctx.db, async (c) => {
    const invite = await lockInvite(c, hash);
    if (!invite || invite.accepted_at || invite.expires_at.getTime() <= Date.now()) throw invalidInvite();
    if (await emailInUse(c, invite.email)) throw new FlowValidationError([message(4000007)], 'traits.email');
    const f = typeof first === 'string' && first.trim() ? first.trim().slice(0, 100) : invite.first_name ?? '';
    const l = typeof last === 'string' && last.trim() ? last.trim().slice(0, 100) : invite.last_name ?? '';
    const id = await create(c, invite, f, l);
    await markInviteAccepted(c, invite.id);
    await notifyChange(c, { relation: 'identities', ids: [id] });
    await notifyChange(c, { relation: 'people', ids: [id] });
    await notifyChange(c, { relation: 'invites', ids: [invite.id] });
    return id;
  });
}

/**
 * Kratos' `passkey` registration: the answer to the flow's creation options becomes the new person's passkey, and the
 * identity (with the id the options promised as user handle) has no password. aal2 when the authenticator verified
 * the user, as a passkey sign-in gives.
 */
async function registerWithPasskey(
  ctx: Parameters<FlowKind['submit']>[0], body: Record<string, unknown>, d: InviteData, hash: string,
) {
  if (!d.invite_hash || !d.person_id || !passkeysAvailable(ctx.config)) {
    throw new FlowValidationError([message(4010002)]);
  }
  const personId = d.person_id;
  const credential = await verifyPasskeyRegistration(ctx, body, personId);
  await acceptInvite(ctx, hash, bodyValue(body, 'traits.name.first'), bodyValue(body, 'traits.name.last'), async (c, invite, f, l) => {
    const traits = { email: invite.email, name: { first: f, last: l } };
    // no identity_credentials row: this person signs in with the passkey (a password can be added in settings)
    await c.query('INSERT INTO identities (id, traits) VALUES ($1, $2)', [personId, traits]);
    await c.query('INSERT INTO person_roles (person_id, role) VALUES ($1, $2) ON CONFLICT DO NOTHING', [personId, invite.role]);
    if (!(await insertCredential(c, credential))) throw new FlowValidationError([WEBAUTHN_TEXT.duplicate], 'passkey_register');
    await recordAuthEvent(c, ctx.req, {
      personId, type: 'webauthn_added', method: 'passkey', details: { name: credential.name, registration: true },
    });
    return personId;
  });
  return { kind: 'session' as const, personId, aal: credential.userVerified ? 'aal2' as const : 'aal1' as const, method: 'passkey' as const };
}
