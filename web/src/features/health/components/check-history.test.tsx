// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { CheckHistory } from './check-history';

const CHECK = '0190b0a4-0000-7000-8000-000000000001';

/** The history API's answer (no results); the requests are what is looked at. */
function stubHistory() {
  const fetch = vi.fn(async (_url: string) =>
    new Response(JSON.stringify({ data: [], totalEntries: 0 }), { headers: { 'content-type': 'application/json' } }));
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

function renderHistory(props: Parameters<typeof CheckHistory>[0]) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(<QueryClientProvider client={qc}><CheckHistory {...props} /></QueryClientProvider>);
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('CheckHistory', () => {
  it('asks for the absolute range (start and end) when the drawer shows one, not a window back from now', async () => {
    const fetch = stubHistory();
    renderHistory({ checkId: CHECK, window: '1h', range: { from: '2026-11-20T08:00:00.000Z', to: '2026-11-20T09:30:00.000Z' } });
    await screen.findByText(/0 results in the window/, undefined, { timeout: 10_000 }); // a loaded CI machine renders slowly
    const url = new URL(String(fetch.mock.calls.at(-1)![0]), 'http://x');
    expect(url.pathname).toBe('/api/canary/api/history');
    expect(url.searchParams.get('start')).toBe('2026-11-20T08:00:00.000Z');
    expect(url.searchParams.get('end')).toBe('2026-11-20T09:30:00.000Z');
  });

  it('asks for a window back from now otherwise', async () => {
    const fetch = stubHistory();
    renderHistory({ checkId: CHECK, window: '6h' });
    await screen.findByText(/0 results in the window/, undefined, { timeout: 10_000 }); // a loaded CI machine renders slowly
    const url = new URL(String(fetch.mock.calls.at(-1)![0]), 'http://x');
    expect(url.searchParams.get('start')).toBe('6h');
    expect(url.searchParams.has('end')).toBe(false);
  });
});
