// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderWithProviders } from '../../../lib/testing';
import { ChangesPanel } from './changes-panel';
import { json, stubServer } from './test-server';

const TOTAL = 120;
const change = (i: number) => ({ id: `ch${i}`, config_id: 'cfg-1', change_type: 'diff', severity: null, summary: `change ${i}`, source: null, created_at: '2026-11-26T09:00:00Z' });

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the Changes panel', () => {
  it('shows the first 50, then the next pages by Load more (no IntersectionObserver here), until every change is shown', async () => {
    const user = userEvent.setup();
    const calls = stubServer({
      'GET /api/db/config_component_relationships': () => [{ config_id: 'cfg-1', selector_id: 'sel', configs: { id: 'cfg-1', name: 'payments-deploy', type: 'Kubernetes::Deployment', deleted_at: null } }],
      'GET /api/db/config_changes': (url) => {
        const offset = Number(url.searchParams.get('offset'));
        const limit = Number(url.searchParams.get('limit'));
        const rows = Array.from({ length: Math.max(0, Math.min(limit, TOTAL - offset)) }, (_, i) => change(offset + i));
        return json(rows, 200, { 'content-range': `${offset}-${offset + rows.length - 1}/${TOTAL}` });
      },
    });
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    renderWithProviders(
      <QueryClientProvider client={qc}>
        <ChangesPanel ctx={{ componentId: 'c1', component: { id: 'c1', name: 'payments', status: 'healthy', summary: {} }, canWrite: false, refetchInterval: 0 }} />
      </QueryClientProvider>,
    );
    const list = await screen.findByRole('list', { name: 'Changes' });
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(50));
    await user.click(await screen.findByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(100));
    await user.click(await screen.findByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(TOTAL));
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    const offsets = calls.filter((c) => c.url.pathname === '/api/db/config_changes').map((c) => c.url.searchParams.get('offset'));
    expect(offsets).toEqual(['0', '50', '100']);
  });
});
