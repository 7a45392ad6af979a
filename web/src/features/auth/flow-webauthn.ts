import type { UiNode } from '@contracts/identity';
import { toast } from '../../lib/toast';

/**
 * The WebAuthn buttons of a flow (security keys, passkeys): a button node whose name ends in `_trigger` carries the
 * options JSON as its value; the browser's answer goes, as JSON, into the hidden field the server names for it
 * (server/modules/auth/factors/webauthn-common.ts, TRIGGERS), posted with `method` = the node's group.
 */
const ANSWER_FIELD: Record<string, { field: string; ceremony: 'register' | 'login' }> = {
  webauthn_register_trigger: { field: 'webauthn_register', ceremony: 'register' },
  webauthn_login_trigger: { field: 'webauthn_login', ceremony: 'login' },
  passkey_register_trigger: { field: 'passkey_register', ceremony: 'register' },
  passkey_settings_register_trigger: { field: 'passkey_settings_register', ceremony: 'register' },
  passkey_login_trigger: { field: 'passkey_login', ceremony: 'login' },
};

export const WEBAUTHN_CANCELLED = 'The security key or passkey did not answer (cancelled or timed out).';

/** Runs the node's ceremony in the browser; the values to submit, or null when it was cancelled. */
export async function runWebAuthnTrigger(node: UiNode): Promise<Record<string, unknown> | null> {
  if (node.attributes.node_type !== 'input') return null;
  const { name, value } = node.attributes;
  const known = ANSWER_FIELD[name] ?? { field: name.replace(/_trigger$/, ''), ceremony: name.includes('register') ? 'register' : 'login' };
  // @simplewebauthn/browser loads with the first ceremony, not with the sign-in page
  const { startAuthentication, startRegistration } = await import('@simplewebauthn/browser');
  try {
    const optionsJSON = JSON.parse(String(value));
    const answer =
      known.ceremony === 'register' ? await startRegistration({ optionsJSON }) : await startAuthentication({ optionsJSON });
    return { method: node.group, [known.field]: JSON.stringify(answer) };
  } catch (err) {
    toast.error(err instanceof Error && err.name !== 'NotAllowedError' ? err.message : WEBAUTHN_CANCELLED);
    return null;
  }
}
