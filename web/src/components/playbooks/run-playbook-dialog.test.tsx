// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderWithProviders } from '../../lib/testing';
import { RunPlaybookDialog } from './run-playbook-dialog';
import type { RunnablePlaybook } from './api';

type Handler = (url: URL, body: unknown) => unknown;

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** A stand-in for the server: routes by method and path, records the calls. */
function stubServer(routes: Record<string, Handler>) {
  const calls: { method: string; path: string; body: unknown }[] = [];
  vi.stubGlobal('fetch', vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://console.test');
    const method = init?.method ?? 'GET';
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, path: url.pathname, body });
    if (url.pathname === '/api/auth/csrf') return json({ csrf_token: 't' });
    const handler = routes[`${method} ${url.pathname}`];
    if (!handler) return json({ error: `no stub for ${method} ${url.pathname}` }, 404);
    const out = await handler(url, body);
    return out instanceof Response ? out : json(out);
  }));
  return calls;
}

const CHECK = '11111111-1111-4111-8111-111111111111';
const playbook: RunnablePlaybook = { id: 'pb1', name: 'restart', title: 'Restart', spec: { checks: [{ types: ['http'] }], actions: [] } };

function renderDialog(props: Partial<Parameters<typeof RunPlaybookDialog>[0]> = {}) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return renderWithProviders(
    <QueryClientProvider client={qc}>
      <RunPlaybookDialog open playbook={playbook} onClose={() => undefined} {...props} />
    </QueryClientProvider>,
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('RunPlaybookDialog', () => {
  it('asks for a resource first when the playbook selects checks; Run stays disabled', async () => {
    const calls = stubServer({});
    renderDialog();
    expect(await screen.findByText('Please select a resource to see the parameters.')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Run' }) as HTMLButtonElement).disabled).toBe(true);
    expect(calls.some((c) => c.path.endsWith('/params'))).toBe(false);
  });

  it('validates the parameters, runs with the check and lands on the run', async () => {
    const user = userEvent.setup();
    const calls = stubServer({
      'POST /api/playbook/pb1/params': () => ({
        params: [
          { name: 'reason', label: 'Reason', type: 'text', required: true, properties: { minLength: 3 } },
          { name: 'force', label: 'Force', type: 'checkbox', default: 'true' },
        ],
      }),
      'GET /api/db/checks': () => [{ id: CHECK, name: 'api-health', type: 'http' }],
      'POST /api/playbook/run': () => json({ run_id: 'run-9', starts_at: '2026-11-26T10:00:00Z' }, 201),
    });
    const view = renderDialog({ resource: { check_id: CHECK } });
    const reason = await screen.findByRole('textbox', { name: /Reason/ });
    const run = screen.getByRole('button', { name: 'Run' }) as HTMLButtonElement;
    await waitFor(() => expect(run.disabled).toBe(true));
    await user.type(reason, 'ab');
    act(() => reason.blur()); // the dialog's focus trap keeps Tab in jsdom
    expect(await screen.findByText('Must be at least 3 characters')).toBeTruthy();
    await user.type(reason, 'c');
    await waitFor(() => expect(run.disabled).toBe(false));
    await user.click(run);
    await waitFor(() => expect(view.location()).toBe('/playbooks/runs/run-9'));
    expect(calls.find((c) => c.path === '/api/playbook/run')?.body).toEqual({ id: 'pb1', check_id: CHECK, params: { reason: 'abc', force: 'true' } });
    expect(calls.find((c) => c.path === '/api/playbook/pb1/params')?.body).toMatchObject({ check_id: CHECK });
  });

  it('says when there are no parameters, and shows a failure’s error field first, then its message', async () => {
    const user = userEvent.setup();
    stubServer({
      'POST /api/playbook/pb1/params': () => ({ params: [] }),
      'GET /api/db/checks': () => [{ id: CHECK, name: 'api-health', type: 'http' }],
      'POST /api/playbook/run': () => json({ error: 'forbidden', message: 'you may not run this playbook' }, 403),
    });
    renderDialog({ resource: { check_id: CHECK } });
    expect(await screen.findByText('No parameters for this playbook.')).toBeTruthy();
    const run = screen.getByRole('button', { name: 'Run' }) as HTMLButtonElement;
    await waitFor(() => expect(run.disabled).toBe(false));
    await user.click(run);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('forbidden\nyou may not run this playbook');
  });

  it('previews the rendered actions', async () => {
    const user = userEvent.setup();
    const calls = stubServer({
      'POST /api/playbook/pb1/params': () => ({ params: [{ name: 'name', type: 'text', default: 'web' }] }),
      'GET /api/db/checks': () => [{ id: CHECK, name: 'api-health', type: 'http' }],
      'POST /api/playbook/pb1/plan': () => ({
        playbook: { id: 'pb1', name: 'restart' },
        params: { name: 'web' },
        actions: [{ name: 'restart', type: 'exec', rendered: { script: 'kubectl rollout restart web' } }],
      }),
    });
    renderDialog({ resource: { check_id: CHECK } });
    await screen.findByRole('textbox', { name: /name/ });
    await user.click(screen.getByRole('button', { name: 'Preview' }));
    expect(await screen.findByText(/kubectl rollout restart web/)).toBeTruthy();
    expect(screen.getByText('1. restart (exec)')).toBeTruthy();
    expect(calls.find((c) => c.path === '/api/playbook/pb1/plan')?.body).toMatchObject({ params: { name: 'web' }, check_id: CHECK });
  });
});
