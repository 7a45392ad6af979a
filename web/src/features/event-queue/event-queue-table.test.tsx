// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderWithProviders } from '../../lib/testing';
import { EventQueueTable } from './event-queue-table';

// vite defines the version at build time; the page's brand module reads it
vi.hoisted(() => Object.assign(globalThis, { __APP_VERSION__: 'test' }));

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

afterEach(() => vi.unstubAllGlobals());

describe('EventQueueTable', () => {
  it('shows event_queue_summary one row per name, with the counts and the most common error', async () => {
    vi.stubGlobal('fetch', vi.fn(async (input: string) => {
      expect(new URL(input, 'http://console.test').pathname).toBe('/api/db/event_queue_summary');
      return json([
        { name: 'check.failed', event_id: 'a', pending: 1, failed: 1, average_attempts: 3, first_failure: '2026-11-20T10:00:00Z', last_failure: '2026-11-20T10:00:00Z', most_common_error: 'boom' },
        { name: 'check.failed', event_id: 'b', pending: 1, failed: 1, average_attempts: 2, first_failure: '2026-11-20T09:00:00Z', last_failure: '2026-11-20T11:00:00Z', most_common_error: 'boom' },
      ]);
    }));
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    renderWithProviders(<QueryClientProvider client={qc}><EventQueueTable /></QueryClientProvider>);
    const table = await screen.findByRole('table', { name: 'Event queue' });
    const row = (await within(table).findByText('check.failed')).closest('tr')!;
    const cells = within(row).getAllByRole('cell').map((c) => c.textContent);
    expect(cells.slice(0, 4)).toEqual(['check.failed', '2', '2', '2.5']);
    expect(cells[6]).toBe('boom');
  });
});
