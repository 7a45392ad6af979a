// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import type { SelfServiceFlow, UiNode, UiNodeGroup } from '@contracts/identity';
import { renderWithProviders } from '../../lib/testing';
import { FlowForm, flowSections, nestValues, PASSWORDS_DIFFER } from './flow-form';

const input = (
  group: UiNodeGroup, name: string, type: string, label?: string, extra: Record<string, unknown> = {}, messages: UiNode['messages'] = [],
): UiNode => ({
  type: 'input', group, messages, meta: label ? { label: { id: 1, text: label, type: 'info' } } : {},
  attributes: { node_type: 'input', name, type, ...extra } as UiNode['attributes'],
});

const flowOf = (nodes: UiNode[], messages: SelfServiceFlow['ui']['messages'] = []): SelfServiceFlow => ({
  id: 'f1', type: 'browser', expires_at: '', issued_at: '', request_url: '',
  ui: { action: '/api/.ory/self-service/login?flow=f1', method: 'POST', nodes, messages },
});

const loginFlow = (passwordMessages: UiNode['messages'] = [], top: SelfServiceFlow['ui']['messages'] = []) =>
  flowOf([
    input('default', 'csrf_token', 'hidden', undefined, { value: 'tok' }),
    input('default', 'identifier', 'text', 'Email or username', { value: '', required: true }),
    input('password', 'password', 'password', 'Password', { required: true }, passwordMessages),
    input('password', 'method', 'submit', 'Sign in', { value: 'password' }),
    input('passkey', 'passkey_login_trigger', 'button', 'Sign in with a passkey', { value: '{}', onclickTrigger: 'oryPasskeyLogin' }),
    input('passkey', 'passkey_login', 'hidden'),
  ], top);

describe('flowSections', () => {
  it('one section per method; the identifier opens the first; csrf goes with every one', () => {
    const { hidden, sections } = flowSections(loginFlow().ui.nodes);
    expect(hidden.map((n) => (n.attributes as { name: string }).name)).toEqual(['csrf_token']);
    expect(sections.map((s) => s.group)).toEqual(['password', 'passkey']);
    expect(sections[0].nodes.map((n) => (n.attributes as { name: string }).name)).toEqual(['identifier', 'password', 'method']);
  });
});

describe('nestValues', () => {
  it('turns dotted names into the nested body Ory clients send', () => {
    expect(nestValues({ 'traits.email': 'a@b', 'traits.name.first': 'A', method: 'password' })).toEqual({
      traits: { email: 'a@b', name: { first: 'A' } }, method: 'password',
    });
  });
});

describe('FlowForm', () => {
  it('labels the fields, focuses the first empty one, and submits its method with the CSRF token', async () => {
    const onSubmit = vi.fn();
    renderWithProviders(<FlowForm flow={loginFlow()} onSubmit={onSubmit} labels={{ identifier: 'Username or email' }} />);
    const user = screen.getByRole('textbox', { name: 'Username or email' });
    expect(document.activeElement).toBe(user);
    fireEvent.change(user, { target: { value: 'ada@example.com' } });
    fireEvent.change(screen.getByLabelText(/^Password/), { target: { value: 'pw-123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith({ csrf_token: 'tok', identifier: 'ada@example.com', password: 'pw-123456', method: 'password' });
  });

  it('Enter in a field submits that method\'s form only', async () => {
    const onSubmit = vi.fn();
    renderWithProviders(<FlowForm flow={loginFlow()} onSubmit={onSubmit} />);
    const forms = document.querySelectorAll('form');
    expect(forms).toHaveLength(2);
    fireEvent.submit(forms[0]);
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    expect(onSubmit.mock.calls[0][0]).toMatchObject({ method: 'password' });
  });

  it('shows the flow\'s messages on top and a field\'s messages at the field', () => {
    renderWithProviders(
      <FlowForm
        flow={loginFlow(
          [{ id: 4000002, text: 'Property password is missing.', type: 'error' }],
          [{ id: 4000006, text: 'The provided credentials are invalid.', type: 'error' }],
        )}
        onSubmit={() => undefined}
      />,
    );
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toContain('The provided credentials are invalid.');
    expect(screen.getByText('Property password is missing.')).toBeTruthy();
    expect(screen.getByLabelText(/^Password/).getAttribute('aria-invalid')).toBe('true');
  });

  it('a WebAuthn button runs the ceremony and submits its answer', async () => {
    const onSubmit = vi.fn();
    const onTrigger = vi.fn().mockResolvedValue({ method: 'passkey', passkey_login: '{"id":"c"}' });
    renderWithProviders(<FlowForm flow={loginFlow()} onSubmit={onSubmit} onTrigger={onTrigger} />);
    fireEvent.click(screen.getByRole('button', { name: 'Sign in with a passkey' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    expect(onSubmit.mock.calls[0][0]).toEqual({ csrf_token: 'tok', method: 'passkey', passkey_login: '{"id":"c"}' });
  });

  it('registration: nested traits, and a confirmation that must match the new password', async () => {
    const onSubmit = vi.fn();
    const flow = flowOf([
      input('default', 'csrf_token', 'hidden', undefined, { value: 'tok' }),
      input('password', 'traits.email', 'email', 'E-Mail', { value: 'ivy@example.com', disabled: true }),
      input('password', 'traits.name.first', 'text', 'First name', { value: 'Ivy' }),
      input('password', 'password', 'password', 'Password', { autocomplete: 'new-password' }),
      input('password', 'method', 'submit', 'Sign up', { value: 'password' }),
    ]);
    renderWithProviders(<FlowForm flow={flow} onSubmit={onSubmit} confirmPassword />);
    // the email is fixed: focus goes to the first field to fill
    expect(document.activeElement).toBe(screen.getByLabelText(/^Password/));
    fireEvent.change(screen.getByLabelText(/^Password/), { target: { value: 'ivy-password-1' } });
    fireEvent.change(screen.getByLabelText(/^Confirm password/), { target: { value: 'other' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByText(PASSWORDS_DIFFER)).toBeTruthy();
    expect(onSubmit).not.toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText(/^Confirm password/), { target: { value: 'ivy-password-1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign up' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    expect(onSubmit.mock.calls[0][0]).toEqual({
      csrf_token: 'tok', traits: { email: 'ivy@example.com', name: { first: 'Ivy' } }, password: 'ivy-password-1', method: 'password',
    });
  });

  it('a field the server marks wrong takes focus with its text selected (a mistyped code is typed over)', () => {
    const totp = (messages: UiNode['messages'] = [], value = '') => flowOf([
      input('default', 'csrf_token', 'hidden', undefined, { value: 'tok' }),
      input('totp', 'totp_code', 'text', 'Authentication code', { value, autocomplete: 'one-time-code' }, messages),
      input('totp', 'method', 'submit', 'Use Authenticator', { value: 'totp' }),
      input('lookup_secret', 'lookup_secret', 'text', 'Backup recovery code', { value: '' }),
      input('lookup_secret', 'method', 'submit', 'Use backup recovery code', { value: 'lookup_secret' }),
    ]);
    const { rerender } = renderWithProviders(<FlowForm flow={totp()} onSubmit={() => undefined} />);
    const code = screen.getByRole('textbox', { name: 'Authentication code' }) as HTMLInputElement;
    expect(document.activeElement).toBe(code);
    // the user moves on to the recovery code; a new answer with an error at the code brings focus back there
    screen.getByRole('textbox', { name: 'Backup recovery code' }).focus();
    rerender(<FlowForm flow={totp([{ id: 4000008, text: 'The provided authentication code is invalid, please try again.', type: 'error' }], '123456')} onSubmit={() => undefined} />);
    expect(document.activeElement).toBe(code);
    expect([code.selectionStart, code.selectionEnd]).toEqual([0, 6]);
  });

  it('renders text secrets, the QR image with its label and links', () => {
    const flow = flowOf([
      { type: 'img', group: 'totp', messages: [], meta: { label: { id: 1, text: 'Authenticator app QR code', type: 'info' } },
        attributes: { node_type: 'img', id: 'totp_qr', src: 'data:image/png;base64,AA', width: 256, height: 256 } },
      { type: 'text', group: 'lookup_secret', messages: [], meta: { label: { id: 2, text: 'Recovery codes', type: 'info' } },
        attributes: { node_type: 'text', id: 'lookup_secret_codes', text: { id: 3, text: 'a, b', type: 'info', context: { secrets: [{ text: 'aaaa' }, { text: 'bbbb' }] } } } },
      { type: 'a', group: 'default', messages: [], meta: {},
        attributes: { node_type: 'a', id: 'logout', href: '/somewhere', title: { id: 4, text: 'Sign out', type: 'info' } } },
    ]);
    renderWithProviders(<FlowForm flow={flow} onSubmit={() => undefined} />);
    expect(screen.getByRole('img', { name: 'Authenticator app QR code' })).toBeTruthy();
    expect(screen.getByRole('list', { name: 'Recovery codes' }).textContent).toBe('aaaabbbb');
    expect(screen.getByRole('link', { name: 'Sign out' }).getAttribute('href')).toBe('/somewhere');
  });
});
