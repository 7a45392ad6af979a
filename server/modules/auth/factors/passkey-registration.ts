import { isIP } from 'node:net';
import {
  generateRegistrationOptions, verifyRegistrationResponse, type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Config } from '../../../config.js';
import type { UiNode, UiText } from '../../../contracts/identity.js';
import { FlowValidationError, type FlowContext } from '../flows/types.js';
import {
  CEREMONY_TIMEOUT_MS, credentialField, currentChallenge, inputNode, relyingParty, RP_NAME, takeChallenge, TEXT,
  userHandleOf,
} from './webauthn-common.js';
import type { NewCredential } from './webauthn-queries.js';

/**
 * A passkey at registration (issue 17: invite-only registration with "optional passkey"), as Kratos' `passkey`
 * method offers it: the registration flow holds the id the new identity will get, which is the passkey's user handle,
 * so the passkey signs in as that person afterwards. The ceremony's nodes are Kratos' (`passkey_register_trigger`,
 * onclickTrigger `oryPasskeyRegistration`, the answer in `passkey_register`); the web (flow-webauthn.ts) already runs
 * them. The credential is checked here and saved by the registration kind in the transaction creating the identity.
 */

/** Kratos' label of the registration button. */
export const SIGN_UP_WITH_PASSKEY: UiText = { id: 1040007, text: 'Sign up with passkey', type: 'info' };

/**
 * Whether browsers can use WebAuthn with this console: the RP ID (PUBLIC_URL's host) must be a name, as browsers
 * refuse an IP address (loopback addresses are served as `localhost`, see relyingParty).
 */
export function passkeysAvailable(config: Config): boolean {
  return isIP(relyingParty(config).rpID.replace(/^\[|\]$/g, '')) === 0;
}

/** The button (creation options for the future identity, a discoverable credential) and the hidden answer field. */
export async function passkeyRegistrationNodes(
  ctx: FlowContext, user: { id: string; email: string; name: string },
): Promise<UiNode[]> {
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: relyingParty(ctx.config).rpID,
    userName: user.email,
    userDisplayName: user.name || user.email,
    userID: userHandleOf(user.id) as Uint8Array<ArrayBuffer>,
    challenge: await currentChallenge(ctx, 'passkey_register_challenge') as Uint8Array<ArrayBuffer>,
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
    extensions: { credProps: true },
  });
  return [
    inputNode('passkey', 'passkey_register_trigger', 'button', {
      value: JSON.stringify(options), label: SIGN_UP_WITH_PASSKEY, onclickTrigger: 'oryPasskeyRegistration',
    }),
    inputNode('passkey', 'passkey_register', 'hidden'),
  ];
}

/**
 * Checks the browser's answer (in `passkey_register`, or `passkey_settings_register` as the settings flow names it)
 * against the flow's single-use challenge and the user handle the flow promised. Returns the credential to save for
 * `personId`; a wrong, replayed or foreign answer is a 400 at the field.
 */
export async function verifyPasskeyRegistration(
  ctx: FlowContext, body: Record<string, unknown>, personId: string,
): Promise<NewCredential> {
  const field = body.passkey_register === undefined && body.passkey_settings_register !== undefined
    ? 'passkey_settings_register' : 'passkey_register';
  const response = credentialField<RegistrationResponseJSON>(body, field);
  const challenge = await takeChallenge(ctx, 'passkey_register_challenge');
  if (!challenge) throw new FlowValidationError([TEXT.notAdded], field);
  const rp = relyingParty(ctx.config);
  try {
    const r = await verifyRegistrationResponse({
      response, expectedChallenge: challenge, expectedOrigin: rp.origins, expectedRPID: rp.rpID,
      requireUserVerification: false,
    });
    if (!r.verified) throw new Error('not verified');
    const info = r.registrationInfo;
    // a passkey must be discoverable: the sign-in asks without naming credentials (credProps says when it is not)
    if (response.clientExtensionResults?.credProps?.rk === false) throw new Error('not a discoverable credential');
    return {
      personId, credentialId: info.credential.id, publicKey: info.credential.publicKey, counter: info.credential.counter,
      transports: info.credential.transports ?? response.response.transports ?? [], name: 'Passkey', isPasskey: true,
      userVerified: info.userVerified, aaguid: info.aaguid,
    };
  } catch (err) {
    ctx.req.log.info({ err }, 'passkey registration refused');
    throw new FlowValidationError([TEXT.notAdded], field);
  }
}
