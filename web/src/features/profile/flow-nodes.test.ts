import { describe, expect, it } from 'vitest';
import type { SelfServiceFlow, UiNode } from '@contracts/identity';
import {
  csrfToken, flowBody, kratosError, lookupState, registeredKeys, registrationOptions, totpState,
} from './flow-nodes';

const input = (group: UiNode['group'], name: string, value?: unknown, label?: UiNode['meta']['label']): UiNode => ({
  type: 'input',
  group,
  attributes: { node_type: 'input', name, type: 'text', value },
  messages: [],
  meta: label ? { label } : {},
});
const text = (group: UiNode['group'], id: string, t: string, context?: Record<string, unknown>): UiNode => ({
  type: 'text',
  group,
  attributes: { node_type: 'text', id, text: { id: 1, text: t, type: 'info', context } },
  messages: [],
  meta: {},
});
const flowOf = (...nodes: UiNode[]): SelfServiceFlow => ({
  id: 'f1',
  type: 'browser',
  expires_at: '',
  issued_at: '',
  request_url: '',
  ui: { action: '/api/.ory/self-service/settings?flow=f1', method: 'POST', nodes: [input('default', 'csrf_token', 'tok'), ...nodes] },
});

describe('settings flow nodes', () => {
  it('finds the CSRF token every submission carries', () => {
    expect(csrfToken(flowOf())).toBe('tok');
    expect(csrfToken(undefined)).toBe('');
  });

  it('reads the authenticator app: enrolling (QR and key) or linked', () => {
    const enrol = flowOf(
      { type: 'img', group: 'totp', attributes: { node_type: 'img', id: 'totp_qr', src: 'data:image/png;base64,AA', width: 256, height: 256 }, messages: [], meta: {} },
      text('totp', 'totp_secret_key', 'JBSWY3DPEHPK3PXP'),
      input('totp', 'totp_code'),
    );
    expect(totpState(enrol)).toEqual({ linked: false, available: true, qr: 'data:image/png;base64,AA', secret: 'JBSWY3DPEHPK3PXP' });
    expect(totpState(flowOf(input('totp', 'totp_unlink', true))).linked).toBe(true);
    expect(totpState(flowOf()).available).toBe(false);
  });

  it('reads recovery codes from context.secrets (a used one marked) or from plain text', () => {
    const secrets = [{ id: 1050009, text: 'aaaa-1111', type: 'info' }, { id: 1050014, text: 'Secret was used at 2026-01-01', type: 'info', context: { secret: 'bbbb-2222', used_at: '2026-01-01' } }];
    const shown = lookupState(flowOf(text('lookup_secret', 'lookup_secret_codes', '', { secrets }), input('lookup_secret', 'lookup_secret_confirm', true)));
    expect(shown.codes).toEqual([{ code: 'aaaa-1111', used: false }, { code: 'bbbb-2222', used: true }]);
    expect(shown.mustConfirm).toBe(true);
    expect(lookupState(flowOf(text('lookup_secret', 'lookup_secret_codes', 'x1, x2\nx3'))).codes.map((c) => c.code)).toEqual(['x1', 'x2', 'x3']);
    const none = lookupState(flowOf(input('lookup_secret', 'lookup_secret_regenerate', true)));
    expect(none).toMatchObject({ available: true, canRegenerate: true, canReveal: false, codes: [] });
  });

  it('lists registered keys from their remove buttons, passkeys first', () => {
    const keys = registeredKeys(flowOf(
      input('webauthn', 'webauthn_remove', 'k1', { id: 1050012, text: 'Remove', type: 'info', context: { display_name: 'YubiKey', added_at: '2026-01-01T00:00:00Z' } }),
      input('passkey', 'passkey_remove', 'p1', { id: 1050012, text: 'Remove', type: 'info', context: { added_at_unix: 1767225600, last_used_at: '2026-02-01T00:00:00Z' } }),
    ));
    expect(keys).toEqual([
      { id: 'p1', kind: 'passkey', name: 'Passkey', addedAt: '2026-01-01T00:00:00.000Z', lastUsedAt: '2026-02-01T00:00:00Z' },
      { id: 'k1', kind: 'webauthn', name: 'YubiKey', addedAt: '2026-01-01T00:00:00Z', lastUsedAt: null },
    ]);
  });

  it('unwraps WebAuthn creation options from the trigger or passkey_create_data', () => {
    const pk = { challenge: 'c', rp: { name: 'x' } };
    expect(registrationOptions(flowOf(input('webauthn', 'webauthn_register_trigger', JSON.stringify({ publicKey: pk }))), 'webauthn')).toEqual(pk);
    expect(registrationOptions(flowOf(input('passkey', 'passkey_create_data', JSON.stringify({ credentialOptions: { publicKey: pk } }))), 'passkey')).toEqual(pk);
    expect(registrationOptions(flowOf(input('passkey', 'passkey_create_data', 'not json')), 'passkey')).toBeNull();
  });

  it('tells a flow answer from a Kratos error body', () => {
    const flow = flowOf();
    expect(flowBody(flow)).toBe(flow);
    expect(flowBody({ error: { id: 'session_refresh_required' } })).toBeNull();
    expect(kratosError({ error: { id: 'session_refresh_required', code: 403 }, redirect_browser_to: '/login?refresh=true' })?.redirect_browser_to)
      .toBe('/login?refresh=true');
    expect(kratosError(flow)).toBeNull();
  });
});
