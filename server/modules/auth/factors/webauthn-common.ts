import { randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse,
  type AuthenticationResponseJSON, type PublicKeyCredentialCreationOptionsJSON, type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Config } from '../../../config.js';
import type { UiNode, UiNodeGroup, UiText } from '../../../contracts/identity.js';
import { recordAuthEvent } from '../events.js';
import { FlowValidationError, type FlowContext, type FlowOutcome } from '../flows/types.js';
import {
  consumeFlowChallenge, deleteCredential, findActiveCredential, hasPassword, insertCredential, listCredentials,
  markUsed, personLabel, type WebAuthnCredentialRow,
} from './webauthn-queries.js';

/**
 * What security keys (factors/webauthn.ts) and passkeys (factors/passkey.ts) share: the relying party, the
 * single-use challenge kept in the flow's data, the nodes, and the two ceremonies' checks.
 *
 * Web contract (web/src/features/auth/webauthn.ts): a button node whose name ends in `_trigger` carries the options
 * JSON (PublicKeyCredentialCreationOptionsJSON or …RequestOptionsJSON, base64url fields) as its `value` and names the
 * ceremony in `onclickTrigger`; the browser's answer, as JSON, goes into the hidden input named in TRIGGERS, posted
 * with `method` = the node's group.
 */

/** How long a browser may take to answer (the options' timeout); an older challenge is replaced on the next render. */
export const CEREMONY_TIMEOUT_MS = 5 * 60_000;
/** An answer to a challenge older than this is refused, whatever the flow's own expiry. */
const CHALLENGE_MAX_AGE_MS = 10 * 60_000;
export const RP_NAME = 'Ops Console';

/** Each trigger button, the hidden field its answer goes in, and the ceremony (the web helper reads the same table). */
export const TRIGGERS = {
  webauthn_register_trigger: { field: 'webauthn_register', onclickTrigger: 'oryWebAuthnRegistration' },
  webauthn_login_trigger: { field: 'webauthn_login', onclickTrigger: 'oryWebAuthnLogin' },
  passkey_register_trigger: { field: 'passkey_settings_register', onclickTrigger: 'oryPasskeySettingsRegistration' },
  passkey_login_trigger: { field: 'passkey_login', onclickTrigger: 'oryPasskeyLogin' },
} as const;
export type TriggerName = keyof typeof TRIGGERS;
export type ChallengeKey = 'webauthn_login_challenge' | 'webauthn_register_challenge' | 'passkey_login_challenge' | 'passkey_register_challenge';

export const TEXT = {
  loginWebAuthn: { id: 1010008, text: 'Use security key', type: 'info' },
  loginPasskey: { id: 1010021, text: 'Sign in with passkey', type: 'info' },
  addWebAuthn: { id: 1050012, text: 'Add security key', type: 'info' },
  webAuthnName: { id: 1050013, text: 'Name of the security key', type: 'info' },
  addPasskey: { id: 1050019, text: 'Add passkey', type: 'info' },
  passkeyName: { id: 1050013, text: 'Name of the passkey', type: 'info' },
  saved: { id: 1050001, text: 'Your changes have been saved!', type: 'success' },
  invalid: { id: 4000006, text: 'The security key or passkey could not be verified. Please try again.', type: 'error' },
  unreadable: { id: 4000001, text: 'The answer of the security key or passkey could not be read.', type: 'error' },
  notAdded: { id: 4000001, text: 'The security key or passkey could not be added. Please try again.', type: 'error' },
  duplicate: { id: 4000007, text: 'This security key or passkey is already registered.', type: 'error' },
  unknown: { id: 4000001, text: 'This security key or passkey does not exist.', type: 'error' },
  lastPasskey: { id: 4000001, text: 'You cannot remove your last passkey: you have no password to sign in with.', type: 'error' },
} satisfies Record<string, UiText>;

const missing = (field: string): UiText => ({ id: 4000002, text: `Property ${field} is missing.`, type: 'error', context: { property: field } });

/** The relying party: publicUrl's host and origin. Browsers accept no IP address as RP ID, so a loopback IP public
 * URL (dev, e2e) uses `localhost` on the same port. */
export function relyingParty(config: Config): { rpID: string; origins: string[] } {
  const u = new URL(config.publicUrl);
  if (u.hostname === '127.0.0.1' || u.hostname === '[::1]') {
    return { rpID: 'localhost', origins: [`${u.protocol}//localhost${u.port ? `:${u.port}` : ''}`] };
  }
  return { rpID: u.hostname, origins: [u.origin] };
}

/** The WebAuthn user handle of a person: the 16 bytes of its id (no name or email, as the spec advises). */
export const userHandleOf = (personId: string): Uint8Array => new Uint8Array(Buffer.from(personId.replace(/-/g, ''), 'hex'));
export const userHandleB64 = (personId: string): string => Buffer.from(userHandleOf(personId)).toString('base64url');

function storedChallenge(ctx: FlowContext, key: ChallengeKey): { challenge: string; issued_at: number } | undefined {
  const v = ctx.flow.data[key] as { challenge?: unknown; issued_at?: unknown } | null | undefined;
  return v && typeof v.challenge === 'string' && typeof v.issued_at === 'number'
    ? { challenge: v.challenge, issued_at: v.issued_at } : undefined;
}

async function saveData(ctx: FlowContext, patch: Record<string, unknown>): Promise<void> {
  await ctx.saveData(patch);
  Object.assign(ctx.flow.data, patch);
}

/** The flow's current challenge for the ceremony, issued now when there is none or it is past the options' timeout:
 * every render within that time offers the same one, so refetching the flow does not void a ceremony under way. */
export async function currentChallenge(ctx: FlowContext, key: ChallengeKey): Promise<Uint8Array> {
  const s = storedChallenge(ctx, key);
  if (s && Date.now() - s.issued_at < CEREMONY_TIMEOUT_MS) return new Uint8Array(Buffer.from(s.challenge, 'base64url'));
  const bytes = randomBytes(32);
  await saveData(ctx, { [key]: { challenge: bytes.toString('base64url'), issued_at: Date.now() } });
  return new Uint8Array(bytes);
}

/** Takes the flow's challenge out (atomically: two answers to one challenge cannot both pass); undefined when there
 * is none, it was used, or it is too old. */
export async function takeChallenge(ctx: FlowContext, key: ChallengeKey): Promise<string | undefined> {
  const s = storedChallenge(ctx, key);
  if (!s) return undefined;
  const taken = await consumeFlowChallenge(ctx.db, ctx.flow.id, key, s.challenge);
  await saveData(ctx, { [key]: null });
  if (!taken || Date.now() - s.issued_at > CHALLENGE_MAX_AGE_MS) return undefined;
  return s.challenge;
}

export function inputNode(group: UiNodeGroup, name: string, type: 'text' | 'hidden' | 'button' | 'submit', o: {
  value?: string; label?: UiText; onclickTrigger?: string; autocomplete?: string; required?: boolean;
} = {}): UiNode {
  return {
    type: 'input',
    group,
    attributes: {
      node_type: 'input', name, type, value: o.value ?? '', disabled: false,
      ...(o.required !== undefined && { required: o.required }),
      ...(o.autocomplete && { autocomplete: o.autocomplete }),
      ...(o.onclickTrigger && { onclickTrigger: o.onclickTrigger }),
    },
    messages: [],
    meta: o.label ? { label: o.label } : {},
  };
}

/** The trigger button (options JSON as its value) and the hidden field the browser's answer goes in. */
export function ceremonyNodes(group: 'webauthn' | 'passkey', trigger: TriggerName, options: unknown, label: UiText): UiNode[] {
  const t = TRIGGERS[trigger];
  return [
    inputNode(group, trigger, 'button', { value: JSON.stringify(options), label, onclickTrigger: t.onclickTrigger }),
    inputNode(group, t.field, 'hidden'),
  ];
}

export const nameNode = (group: 'webauthn' | 'passkey', label: UiText): UiNode =>
  inputNode(group, `${group}_register_displayname`, 'text', { label, autocomplete: 'off', required: false });

/** One remove button per credential; its label's context tells the list (name, added, last used). */
export function removeNodes(group: 'webauthn' | 'passkey', rows: WebAuthnCredentialRow[]): UiNode[] {
  const [id, what] = group === 'webauthn' ? [1050018, 'security key'] : [1050020, 'passkey'];
  return rows.map((r) => inputNode(group, `${group}_remove`, 'submit', {
    value: r.id,
    label: {
      id, text: `Remove ${what} "${r.name}"`, type: 'info',
      context: {
        display_name: r.name, added_at: r.created_at.toISOString(), added_at_unix: Math.floor(r.created_at.getTime() / 1000),
        last_used_at: r.last_used_at?.toISOString() ?? null, user_verified: r.user_verified,
      },
    },
  }));
}

/** Creation options for the signed-in person; the challenge stays in the flow. */
export async function creationOptions(ctx: FlowContext, passkey: boolean): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const personId = ctx.personId as string;
  const [person, existing] = await Promise.all([personLabel(ctx.db, personId), listCredentials(ctx.db, personId, null)]);
  const name = person?.email || person?.name || personId;
  return generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: relyingParty(ctx.config).rpID,
    userName: name,
    userDisplayName: person?.name || name,
    userID: userHandleOf(personId) as Uint8Array<ArrayBuffer>,
    challenge: await currentChallenge(ctx, passkey ? 'passkey_register_challenge' : 'webauthn_register_challenge') as Uint8Array<ArrayBuffer>,
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: c.transports })),
    authenticatorSelection: passkey
      ? { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' }
      : { residentKey: 'discouraged', userVerification: 'discouraged' },
    ...(passkey && { extensions: { credProps: true } }),
  });
}

/** Request options: `allow` the person's credentials (a second factor, a refresh), or none for a discoverable
 * passkey sign-in. */
export async function requestOptions(
  ctx: FlowContext, passkey: boolean, allow: WebAuthnCredentialRow[] | undefined,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({
    rpID: relyingParty(ctx.config).rpID,
    challenge: await currentChallenge(ctx, passkey ? 'passkey_login_challenge' : 'webauthn_login_challenge') as Uint8Array<ArrayBuffer>,
    timeout: CEREMONY_TIMEOUT_MS,
    userVerification: passkey ? 'preferred' : 'discouraged',
    ...(allow && { allowCredentials: allow.map((c) => ({ id: c.credential_id, transports: c.transports })) }),
  });
}

/** The browser's answer from a form field: a JSON string (form posts) or an object (JSON bodies). */
export function credentialField<T>(body: Record<string, unknown>, field: string): T {
  let v = body[field];
  if (v === undefined || v === null || v === '') throw new FlowValidationError([missing(field)], field);
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      throw new FlowValidationError([TEXT.unreadable], field);
    }
  }
  const o = v as { id?: unknown; rawId?: unknown; type?: unknown; response?: unknown };
  if (!o || typeof o !== 'object' || typeof o.id !== 'string' || typeof o.rawId !== 'string'
    || o.type !== 'public-key' || !o.response || typeof o.response !== 'object') {
    throw new FlowValidationError([TEXT.unreadable], field);
  }
  return v as T;
}

const displayName = (body: Record<string, unknown>, field: string, fallback: string): string => {
  const v = typeof body[field] === 'string' ? (body[field] as string).trim().slice(0, 64) : '';
  return v || fallback;
};

/** Verifies a registration against the flow's challenge and saves the credential for the signed-in person. */
export async function registerCredential(ctx: FlowContext, body: Record<string, unknown>, passkey: boolean, field: string): Promise<FlowOutcome> {
  const personId = ctx.personId as string;
  const response = credentialField<RegistrationResponseJSON>(body, field);
  const challenge = await takeChallenge(ctx, passkey ? 'passkey_register_challenge' : 'webauthn_register_challenge');
  if (!challenge) throw new FlowValidationError([TEXT.notAdded], field);
  const rp = relyingParty(ctx.config);
  let info;
  try {
    const r = await verifyRegistrationResponse({
      response, expectedChallenge: challenge, expectedOrigin: rp.origins, expectedRPID: rp.rpID,
      requireUserVerification: false,
    });
    if (!r.verified) throw new Error('not verified');
    info = r.registrationInfo;
  } catch (err) {
    ctx.req.log.info({ err }, 'webauthn registration refused');
    throw new FlowValidationError([TEXT.notAdded], field);
  }
  const name = displayName(body, `${passkey ? 'passkey' : 'webauthn'}_register_displayname`, passkey ? 'Passkey' : 'Security key');
  const row = await insertCredential(ctx.db, {
    personId, credentialId: info.credential.id, publicKey: info.credential.publicKey, counter: info.credential.counter,
    transports: info.credential.transports ?? response.response.transports ?? [], name, isPasskey: passkey,
    userVerified: info.userVerified, aaguid: info.aaguid,
  });
  if (!row) throw new FlowValidationError([TEXT.duplicate], field);
  await recordAuthEvent(ctx.db, ctx.req, {
    personId, sessionId: ctx.session?.id, type: 'webauthn_added', method: passkey ? 'passkey' : 'webauthn',
    details: { name, credential: row.id },
  });
  return { kind: 'show', messages: [TEXT.saved] };
}

/** Removes one of the signed-in person's credentials of the kind (`<group>_remove` holds its id). */
export async function removeCredential(ctx: FlowContext, body: Record<string, unknown>, passkey: boolean): Promise<FlowOutcome> {
  const personId = ctx.personId as string;
  const field = passkey ? 'passkey_remove' : 'webauthn_remove';
  const id = body[field];
  if (typeof id !== 'string' || !/^[0-9a-f-]{36}$/i.test(id)) throw new FlowValidationError([TEXT.unknown], field);
  if (passkey && !(await hasPassword(ctx.db, personId))) {
    const left = await listCredentials(ctx.db, personId, true);
    if (left.length === 1 && left[0].id === id.toLowerCase()) throw new FlowValidationError([TEXT.lastPasskey], field);
  }
  const name = await deleteCredential(ctx.db, personId, id, passkey);
  if (name === undefined) throw new FlowValidationError([TEXT.unknown], field);
  await recordAuthEvent(ctx.db, ctx.req, {
    personId, sessionId: ctx.session?.id, type: 'webauthn_removed', method: passkey ? 'passkey' : 'webauthn',
    details: { name, credential: id },
  });
  return { kind: 'show', messages: [TEXT.saved] };
}

/**
 * Verifies an assertion against the flow's challenge. `personId` (a second factor, a refresh) must own the
 * credential; without it (a passkey sign-in) the user handle names the person and must match the credential's.
 * Every refusal is the same message, so it tells nothing about which part was wrong.
 */
export async function assertCredential(ctx: FlowContext, body: Record<string, unknown>, o: {
  passkey: boolean; field: string; personId: string | null;
}): Promise<{ personId: string; userVerified: boolean }> {
  const response = credentialField<AuthenticationResponseJSON>(body, o.field);
  const challenge = await takeChallenge(ctx, o.passkey ? 'passkey_login_challenge' : 'webauthn_login_challenge');
  const refuse = (why: string): never => {
    ctx.req.log.info({ why, flow: ctx.flow.id }, 'webauthn assertion refused');
    throw new FlowValidationError([TEXT.invalid], o.field);
  };
  if (!challenge) return refuse('no challenge, used or expired');
  const row = await findActiveCredential(ctx.db, response.id);
  if (!row) return refuse('unknown credential');
  if (o.passkey && !row.is_passkey) return refuse('not a passkey');
  if (o.personId && row.person_id !== o.personId) return refuse("another person's credential");
  const handle = response.response.userHandle;
  if (!o.personId && !handle) return refuse('no user handle');
  if (handle && handle !== userHandleB64(row.person_id)) return refuse('user handle of another person');
  const rp = relyingParty(ctx.config);
  let info;
  try {
    const r = await verifyAuthenticationResponse({
      response, expectedChallenge: challenge, expectedOrigin: rp.origins, expectedRPID: rp.rpID,
      credential: {
        id: row.credential_id, publicKey: new Uint8Array(row.public_key) as Uint8Array<ArrayBuffer>,
        counter: Number(row.counter), transports: row.transports,
      },
      requireUserVerification: false,
    });
    info = r.verified ? r.authenticationInfo : undefined;
  } catch (err) {
    return refuse(err instanceof Error ? err.message : 'verification failed');
  }
  if (!info) return refuse('signature');
  if (!(await markUsed(ctx.db, row.id, row.counter, info.newCounter))) return refuse('counter moved meanwhile');
  return { personId: row.person_id, userVerified: info.userVerified };
}
