// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderWithProviders } from '../../../lib/testing';
import { RuleFormDialog } from './rule-form-dialog';
import type { RuleRow } from './model';

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** The server as the dialog reaches it: people, teams, connections, and a write answer. */
function stubServer(write: (body: unknown) => Response) {
  const writes: { method: string; url: string; body: unknown }[] = [];
  vi.stubGlobal('fetch', vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://console.test');
    const method = init?.method ?? 'GET';
    if (url.pathname === '/api/auth/csrf') return json({ csrf_token: 't' });
    if (url.pathname === '/api/db/people') return json([{ id: 'p1', name: 'Ada', email: 'ada@example.test' }]);
    if (url.pathname === '/api/db/teams') return json([{ id: 't1', name: 'Ops' }]);
    if (url.pathname === '/api/db/connections') return json([{ id: 'c1', name: 'slack-ops', namespace: 'default', type: 'slack' }, { id: 'c2', name: 'pg', namespace: 'default', type: 'postgres' }]);
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    writes.push({ method, url: url.pathname + url.search, body });
    return write(body);
  }));
  return writes;
}

function renderDialog(props: Partial<Parameters<typeof RuleFormDialog>[0]> = {}) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const onClose = vi.fn();
  renderWithProviders(
    <QueryClientProvider client={qc}>
      <RuleFormDialog canWrite currentUserId="me" onClose={onClose} {...props} />
    </QueryClientProvider>,
  );
  return onClose;
}

afterEach(() => vi.unstubAllGlobals());

const rule: RuleRow = {
  id: 'r1', name: 'pager', events: ['check.failed'], person_id: 'p1', source: 'UI',
  sent: 0, failed: 0, pending: 0, avg_duration_ms: null, wait_for: null,
};

describe('RuleFormDialog', () => {
  it('switching recipient tabs clears the others; Others lists notification connections only', async () => {
    const user = userEvent.setup();
    const writes = stubServer(() => json({}, 204));
    renderDialog({ rule });
    const person = await screen.findByRole('combobox', { name: /Person/ });
    await waitFor(() => expect((person as HTMLSelectElement).value).toBe('p1'));
    await user.click(screen.getByRole('tab', { name: 'Others' }));
    const conn = await screen.findByRole('combobox', { name: /Connection/ });
    await waitFor(() => expect(conn.querySelectorAll('option')).toHaveLength(2));
    expect(conn.textContent).toContain('slack-ops (slack)');
    expect(conn.textContent).not.toContain('pg');
    await user.click(screen.getByRole('tab', { name: 'Person' }));
    expect((screen.getByRole('combobox', { name: /Person/ }) as HTMLSelectElement).value).toBe('');
    await user.selectOptions(screen.getByRole('combobox', { name: /Person/ }), 'p1');
    await user.click(screen.getByRole('button', { name: 'Update' }));
    await waitFor(() => expect(writes).toHaveLength(1));
    expect(writes[0]).toMatchObject({ method: 'PATCH', url: '/api/db/notifications?id=eq.r1' });
    expect(writes[0].body).toMatchObject({ person_id: 'p1', team_id: null, custom_services: null, template: null });
  });

  it('shows a server 400 on the field its path names', async () => {
    const user = userEvent.setup();
    stubServer(() => json({ code: 'invalid', message: 'invalid notification: filter: undeclared reference to "chek"', details: { filter: 'undeclared reference to "chek"' } }, 400));
    const onClose = renderDialog({ rule });
    await user.type(await screen.findByRole('textbox', { name: /Filter/ }), 'chek.name == "x"');
    await user.click(screen.getByRole('button', { name: 'Update' }));
    expect(await screen.findByText('undeclared reference to "chek"')).toBeTruthy();
    expect(onClose).not.toHaveBeenCalled();
  });

  it('a CR rule is read-only with its source; no Update', async () => {
    stubServer(() => json({}));
    renderDialog({ rule: { ...rule, source: 'KubernetesCRD' } });
    expect(await screen.findByText(/Linked to KubernetesCRD/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Update' })).toBeNull();
    expect((screen.getByRole('textbox', { name: /Name/ }) as HTMLInputElement).disabled).toBe(true);
  });
});
