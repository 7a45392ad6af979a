// @vitest-environment jsdom
import type { UiNode } from '@contracts/identity';
import { describe, expect, it } from 'vitest';
import { runWebAuthnNode, WebAuthnCancelled, webAuthnSubmission, webAuthnTrigger } from './webauthn';

const input = (name: string, value: string, group: UiNode['group'] = 'passkey'): UiNode => ({
  type: 'input', group, attributes: { node_type: 'input', name, type: 'button', value }, messages: [], meta: {},
});

describe('the WebAuthn helper', () => {
  it('knows the trigger nodes and where their answers go', () => {
    expect(webAuthnTrigger(input('passkey_login_trigger', '{"challenge":"x"}'))).toEqual({
      name: 'passkey_login_trigger', value: '{"challenge":"x"}', field: 'passkey_login', kind: 'login',
    });
    expect(webAuthnTrigger(input('webauthn_register_trigger', '{}', 'webauthn'))).toMatchObject({ field: 'webauthn_register', kind: 'register' });
    expect(webAuthnTrigger(input('passkey_register_trigger', '{}'))).toMatchObject({ field: 'passkey_settings_register' });
    // a trigger without options, or another button, is none
    expect(webAuthnTrigger(input('passkey_login_trigger', ''))).toBeUndefined();
    expect(webAuthnTrigger(input('method', 'password', 'password'))).toBeUndefined();
  });

  it('says so when the browser has no WebAuthn (jsdom has none)', async () => {
    await expect(runWebAuthnNode('{"challenge":"x"}', 'login')).rejects.toBeInstanceOf(WebAuthnCancelled);
    await expect(webAuthnSubmission(input('passkey_login_trigger', '{"challenge":"x"}'))).rejects.toThrow(/does not support/);
    await expect(webAuthnSubmission(input('method', 'password', 'password'))).rejects.toThrow(/no WebAuthn trigger/);
  });
});
