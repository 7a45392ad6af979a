import type { Factor } from '../flows/types.js';
import { FlowValidationError } from '../flows/types.js';
import {
  assertCredential, ceremonyNodes, creationOptions, nameNode, registerCredential, removeCredential, removeNodes,
  requestOptions, TEXT,
} from './webauthn-common.js';
import { deleteAllCredentials, hasCredentials, listCredentials } from './webauthn-queries.js';

/**
 * Security keys: a WebAuthn second factor (aal2). Login offers the person's credentials (security keys and passkeys
 * alike: either proves possession of a key); settings adds (`webauthn_register`, named by
 * `webauthn_register_displayname`) and removes (`webauthn_remove` = the credential's id).
 */
export const webauthnFactor: Factor = {
  method: 'webauthn',
  group: 'webauthn',
  aal: 'aal2',

  enrolled: (db, personId) => hasCredentials(db, personId, false),
  enrolledSql: (person) => `EXISTS (SELECT 1 FROM auth_webauthn_credentials WHERE person_id = ${person} AND NOT is_passkey)`,

  async loginNodes(ctx) {
    // a second factor only: who is signing in is known from the first
    if (!ctx.personId) return [];
    const creds = await listCredentials(ctx.db, ctx.personId, null);
    if (creds.length === 0) return [];
    return ceremonyNodes('webauthn', 'webauthn_login_trigger', await requestOptions(ctx, false, creds), TEXT.loginWebAuthn);
  },

  async login(ctx, body) {
    if (!ctx.personId) throw new FlowValidationError([TEXT.invalid], 'webauthn_login');
    const r = await assertCredential(ctx, body, { passkey: false, field: 'webauthn_login', personId: ctx.personId });
    return { personId: r.personId, aal: 'aal2' };
  },

  async settingsNodes(ctx) {
    if (!ctx.personId) return [];
    const keys = await listCredentials(ctx.db, ctx.personId, false);
    return [
      nameNode('webauthn', TEXT.webAuthnName),
      ...ceremonyNodes('webauthn', 'webauthn_register_trigger', await creationOptions(ctx, false), TEXT.addWebAuthn),
      ...removeNodes('webauthn', keys),
    ];
  },

  async settings(ctx, body) {
    if (body.webauthn_remove !== undefined && body.webauthn_remove !== '') return removeCredential(ctx, body, false);
    return registerCredential(ctx, body, false, 'webauthn_register');
  },

  async reset(db, personId) {
    await deleteAllCredentials(db, personId, false);
  },
};
