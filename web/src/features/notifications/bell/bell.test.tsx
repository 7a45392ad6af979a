// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderWithProviders } from '../../../lib/testing';
import { SessionContext } from '../../../app/session-context';
import { sessionStub } from '../../../app/session-stub';
import { NotificationBell } from './bell';

const json = (body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', ...headers } });

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('NotificationBell', () => {
  it('badges the errors since last opened, lists the latest sends, and clears the badge once opened', async () => {
    const asked: string[] = [];
    vi.stubGlobal('fetch', vi.fn(async (input: string) => {
      const url = new URL(input, 'http://console.test');
      asked.push(url.pathname + url.search);
      if (url.pathname === '/api/db/notification_send_history') {
        // errors after the stored "last seen": 3 before it is moved to now, none after
        const since = url.searchParams.get('created_at') ?? '';
        return json([], { 'content-range': since === 'gt.2026-11-01T00:00:00.000Z' ? '0-0/3' : '*/0' });
      }
      return json([{ id: 'h1', status: 'error', created_at: new Date().toISOString(), source_event: 'check.failed', resource: { name: 'api-health' }, resource_kind: 'check', body: '## Check api-health failed', count: 1 }]);
    }));
    localStorage.setItem('notifications.bell.lastSeen', '2026-11-01T00:00:00.000Z');
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    renderWithProviders(
      <SessionContext.Provider value={sessionStub()}>
        <QueryClientProvider client={qc}><NotificationBell /></QueryClientProvider>
      </SessionContext.Provider>,
    );
    expect((await screen.findByTestId('notification-bell-badge')).textContent).toBe('3');
    expect(asked[0]).toContain('status=eq.error');
    await userEvent.click(screen.getByRole('button', { name: /Notifications, 3 failed/ }));
    expect(await screen.findByText('Check api-health failed', {}, { timeout: 8000 })).toBeTruthy();
    expect(screen.getByText('View all').closest('a')?.getAttribute('href')).toBe('/notifications');
    await waitFor(() => expect(screen.queryByTestId('notification-bell-badge')).toBeNull());
    expect(Date.parse(localStorage.getItem('notifications.bell.lastSeen') ?? '')).toBeGreaterThan(Date.parse('2026-11-02T00:00:00Z'));
  });

  it('is hidden when notifications are turned off', () => {
    vi.stubGlobal('fetch', vi.fn());
    const qc = new QueryClient();
    renderWithProviders(
      <SessionContext.Provider value={sessionStub({ off: ['settings.notifications'] })}>
        <QueryClientProvider client={qc}><NotificationBell /></QueryClientProvider>
      </SessionContext.Provider>,
    );
    expect(screen.queryByRole('button')).toBeNull();
  });
});
