import type { Factor } from '../flows/types.js';
import {
  assertCredential, ceremonyNodes, creationOptions, nameNode, registerCredential, removeCredential, removeNodes,
  requestOptions, TEXT,
} from './webauthn-common.js';
import { deleteAllCredentials, hasCredentials, listCredentials } from './webauthn-queries.js';

/**
 * Passkeys: discoverable WebAuthn credentials that sign in without a password (issue 17, "Beyond the reference" 1).
 * The first factor asks with no allowCredentials and the answer's user handle names the person; an assertion the
 * authenticator user-verified gives aal2 at once, else aal1. A refresh asks for the signed-in person's passkeys.
 * Settings adds (`passkey_settings_register`, named by `passkey_register_displayname`) and removes (`passkey_remove`).
 */
export const passkeyFactor: Factor = {
  method: 'passkey',
  group: 'passkey',
  aal: 'aal1',

  enrolled: (db, personId) => hasCredentials(db, personId, true),
  enrolledSql: (person) => `EXISTS (SELECT 1 FROM auth_webauthn_credentials WHERE person_id = ${person} AND is_passkey)`,

  async loginNodes(ctx) {
    if (!ctx.personId) {
      return ceremonyNodes('passkey', 'passkey_login_trigger', await requestOptions(ctx, true, undefined), TEXT.loginPasskey);
    }
    // a second step belongs to the second factors (security keys accept passkeys there); a refresh re-proves the first
    if (!ctx.flow.refresh) return [];
    const mine = await listCredentials(ctx.db, ctx.personId, true);
    if (mine.length === 0) return [];
    return ceremonyNodes('passkey', 'passkey_login_trigger', await requestOptions(ctx, true, mine), TEXT.loginPasskey);
  },

  async login(ctx, body) {
    const r = await assertCredential(ctx, body, { passkey: true, field: 'passkey_login', personId: ctx.personId });
    return { personId: r.personId, aal: r.userVerified ? 'aal2' : 'aal1' };
  },

  async settingsNodes(ctx) {
    if (!ctx.personId) return [];
    const passkeys = await listCredentials(ctx.db, ctx.personId, true);
    return [
      nameNode('passkey', TEXT.passkeyName),
      ...ceremonyNodes('passkey', 'passkey_register_trigger', await creationOptions(ctx, true), TEXT.addPasskey),
      ...removeNodes('passkey', passkeys),
    ];
  },

  async settings(ctx, body) {
    if (body.passkey_remove !== undefined && body.passkey_remove !== '') return removeCredential(ctx, body, true);
    // Kratos names the field passkey_settings_register in settings and passkey_register in registration: take either
    const field = body.passkey_settings_register === undefined && body.passkey_register !== undefined
      ? 'passkey_register' : 'passkey_settings_register';
    return registerCredential(ctx, body, true, field);
  },

  async reset(db, personId) {
    await deleteAllCredentials(db, personId, true);
  },
};
