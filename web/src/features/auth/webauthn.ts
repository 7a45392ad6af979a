import type { UiNode } from '@contracts/identity';

/**
 * The browser side of security keys and passkeys. The server (server/modules/auth/factors/webauthn-common.ts) puts
 * each ceremony in a flow as two nodes: a button named `*_trigger` whose `value` is the options JSON
 * (PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON; base64url fields, as
 * @simplewebauthn/browser takes them) and whose `onclickTrigger` names the ceremony, and a hidden input for the
 * answer. Submit `{ method: node.group, [field]: answerJson }` (plus `<group>_register_displayname` when adding).
 * @simplewebauthn/browser is loaded with the first ceremony, so it stays out of the main bundle.
 */

export type WebAuthnCeremony = 'register' | 'login';

/** Each trigger: the hidden field its answer goes in, and the ceremony it runs. */
export const WEBAUTHN_TRIGGERS: Record<string, { field: string; kind: WebAuthnCeremony }> = {
  webauthn_register_trigger: { field: 'webauthn_register', kind: 'register' },
  webauthn_login_trigger: { field: 'webauthn_login', kind: 'login' },
  passkey_register_trigger: { field: 'passkey_settings_register', kind: 'register' },
  passkey_login_trigger: { field: 'passkey_login', kind: 'login' },
};

/** What the browser said when no answer came: the user cancelled or the time ran out, or WebAuthn is missing. */
export class WebAuthnCancelled extends Error {
  constructor(message = 'The security key or passkey did not answer (cancelled or timed out).') {
    super(message);
    this.name = 'WebAuthnCancelled';
  }
}

/** Whether this browser can run WebAuthn at all (no: hide the buttons or say so). */
export const webAuthnAvailable = (): boolean =>
  typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function' && !!navigator.credentials;

/** A WebAuthn trigger node of a flow, with its answer field and ceremony; undefined for any other node. */
export function webAuthnTrigger(node: UiNode): { name: string; value: string; field: string; kind: WebAuthnCeremony } | undefined {
  if (node.attributes.node_type !== 'input') return undefined;
  const t = WEBAUTHN_TRIGGERS[node.attributes.name];
  if (!t || typeof node.attributes.value !== 'string' || node.attributes.value === '') return undefined;
  return { name: node.attributes.name, value: node.attributes.value, ...t };
}

/**
 * Runs a node's ceremony: `navigator.credentials.create` ('register') or `.get` ('login') with the options JSON,
 * and returns the browser's answer as the JSON string for the form field. Rejects with WebAuthnCancelled when the user
 * cancelled or it timed out (NotAllowedError, AbortError), with the browser's own error otherwise (e.g.
 * InvalidStateError: this authenticator is already registered).
 */
export async function runWebAuthnNode(optionsJson: string, kind: WebAuthnCeremony): Promise<string> {
  if (!webAuthnAvailable()) throw new WebAuthnCancelled('This browser does not support security keys or passkeys.');
  const parsed = JSON.parse(optionsJson) as { publicKey?: unknown };
  // Kratos' reference UI passes {publicKey: options}; the options themselves are what the library takes
  const optionsJSON = (parsed.publicKey ?? parsed) as never;
  const { startAuthentication, startRegistration } = await import('@simplewebauthn/browser');
  try {
    const answer = kind === 'register' ? await startRegistration({ optionsJSON }) : await startAuthentication({ optionsJSON });
    return JSON.stringify(answer);
  } catch (err) {
    const name = (err as { name?: string; cause?: { name?: string } }).cause?.name ?? (err as { name?: string }).name;
    if (name === 'NotAllowedError' || name === 'AbortError') throw new WebAuthnCancelled();
    throw err;
  }
}

/** Runs a trigger node and gives the values to submit to its flow: `method` and the answer field. */
export async function webAuthnSubmission(node: UiNode): Promise<Record<string, string>> {
  const t = webAuthnTrigger(node);
  if (!t) throw new Error(`${node.attributes.node_type === 'input' ? node.attributes.name : 'node'} is no WebAuthn trigger`);
  return { method: node.group, [t.field]: await runWebAuthnNode(t.value, t.kind) };
}
