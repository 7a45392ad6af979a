// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { CheckSummary } from '@contracts/health';
import { CheckDrawer } from './check-drawer';

// the chart draws on a canvas; here only the figures beside it matter
vi.mock('./health-chart', () => ({ HealthChart: () => <div /> }));

const CHECK = '0190b0a4-0000-7000-8000-000000000001';
const summary: CheckSummary = {
  id: CHECK, canary_id: 'c1', canary_name: 'web', canary_namespace: 'default', agent_id: 'a', name: 'home', type: 'http',
  namespace: 'default', labels: {}, status: 'healthy', uptime: { passed: 10, failed: 0 },
  latency: { p95: 5, p97: 5, p99: 5, avg: 5, rolling1h: 0 }, created_at: null, updated_at: null,
};

/** The server: the check's detail is not there (the row's summary is shown), the graph of the chosen range is. */
function stubServer() {
  const fetch = vi.fn(async (url: string) => {
    const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    if (url.startsWith('/api/canary/api/graph')) {
      return json({
        duration: 1, runnerName: 'local', bucketSeconds: 900,
        status: [{ time: '2026-11-20T08:15:00Z', duration: 700, passed: 3, failed: 1 }],
        latency: { p95: 700, p97: 800, p99: 900, avg: 650, rolling1h: 0 }, uptime: { passed: 3, failed: 1 },
      });
    }
    if (url.startsWith('/api/canary/api/history')) return json({ data: [], totalEntries: 0 });
    return json({ code: 'not_found', message: 'not here' }, 404);
  });
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('CheckDrawer', () => {
  it('shows uptime and latency over an absolute range (the graph of that range), not the last window from now', async () => {
    stubServer();
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={qc}>
        <CheckDrawer
          checkId={CHECK} summary={summary} window="90m" canRunNow={false} onClose={() => undefined}
          range={{ type: 'absolute', display: 'Custom', from: '2026-11-20T08:00:00.000Z', to: '2026-11-20T09:30:00.000Z' }}
        />
      </QueryClientProvider>,
    );
    const stats = await screen.findByRole('group', { name: 'Check statistics' });
    expect(await within(stats).findByText(/75(\.0)?%/)).toBeTruthy();
    expect(within(stats).getByText(/95: 700ms/)).toBeTruthy();
  });
});
