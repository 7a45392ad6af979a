// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TopologyComponent } from '@contracts/topology';
import { renderWithProviders } from '../../../lib/testing';
import { TopologyCard } from './topology-card';
import { AgentNamesContext } from '../../health/agent-names';

// the dialogs are H7's and tested there; the card only opens them
vi.mock('../dialogs', () => ({
  LinkToIncidentDialog: () => <p>incident dialog</p>,
  SnapshotDialog: () => <p>snapshot dialog</p>,
  LinkToCatalogDialog: () => <p>catalog dialog</p>,
}));

const base = (c: Partial<TopologyComponent>): TopologyComponent => ({
  id: 'c1', name: 'checkout', type: 'Service', status: 'healthy', summary: {}, ...c,
}) as TopologyComponent;

const svc = base({
  status: 'unhealthy',
  status_reason: 'probe failed',
  properties: [
    { name: 'cpu', label: 'CPU', value: 900, max: 1000, unit: 'millicores', headline: true },
    ...Array.from({ length: 7 }, (_, i) => ({ name: `p${i}`, text: `v${i}` })),
  ],
  summary: { checks: { unhealthy: 1, healthy: 2 } },
  components: [
    base({ id: 'k1', name: 'pod-ok', status: 'healthy' }),
    base({ id: 'k2', name: 'pod-bad', status: 'unhealthy', summary: { unhealthy: 1 } }),
  ],
});

const all = { logs: true, write: true, incidents: true };

function renderCard(c: TopologyComponent, width: number, can?: typeof all, onSelect = vi.fn()) {
  const qc = new QueryClient();
  const r = renderWithProviders(
    <QueryClientProvider client={qc}>
      <TopologyCard component={c} width={width} zoomHref={`/topology/${c.id}`} can={can} onSelect={onSelect} />
    </QueryClientProvider>,
    { url: '/topology' },
  );
  return { ...r, onSelect };
}

describe('the topology card', () => {
  it('shows name, reason, red border, properties (six, then more), check counts and children worst first', async () => {
    const user = userEvent.setup();
    renderCard(svc, 554);
    const card = screen.getByRole('article', { name: 'checkout' });
    expect(card.getAttribute('data-health')).toBe('red');
    expect(within(card).getByText('probe failed')).toBeTruthy();
    expect(within(card).getByText('90%')).toBeTruthy();
    expect(within(card).getByRole('meter').getAttribute('aria-valuenow')).toBe('90');
    expect(within(card).queryByText('v6')).toBeNull();
    await user.click(within(card).getByRole('button', { name: 'Show 1 more' }));
    expect(within(card).getByText('v6')).toBeTruthy();
    const chips = within(card).getAllByRole('link').filter((a) => a.getAttribute('href')?.startsWith('/health?'));
    expect(chips.map((a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['1 unhealthy', '/health?status=unhealthy'], ['2 healthy', '/health?status=healthy'],
    ]);
    const children = within(card).getAllByRole('link').map((a) => a.textContent).filter((t) => t?.startsWith('pod-'));
    expect(children).toEqual(['pod-bad', 'pod-ok']);
  });

  it('small and medium cards show the headline metrics only', () => {
    renderCard(svc, 258);
    const card = screen.getByRole('article', { name: 'checkout' });
    expect(within(card).getByText('90%')).toBeTruthy();
    expect(within(card).queryByText('v0')).toBeNull();
    expect(within(card).queryByRole('link', { name: 'pod-bad' })).toBeNull();
  });

  it('a click on the card selects it; a click on a link does not', async () => {
    const user = userEvent.setup();
    const { onSelect } = renderCard(svc, 554);
    await user.click(screen.getByText('probe failed'));
    expect(onSelect).toHaveBeenCalledWith('c1');
    onSelect.mockClear();
    await user.click(screen.getByRole('link', { name: 'pod-ok' }));
    expect(onSelect).not.toHaveBeenCalled();
  });

  it('the menu: View Logs only with logs, writes only for those who may, none at all when embedded', async () => {
    const user = userEvent.setup();
    const { unmount } = renderCard(base({ logs: [{ name: 'app' }] }), 554, all);
    await user.click(screen.getByRole('button', { name: 'Actions for checkout' }));
    expect((await screen.findAllByRole('menuitem')).map((m) => m.textContent)).toEqual([
      'View Logs', 'Zoom In', 'Link to Incident', 'Snapshot', 'Link to catalog', 'Hide component',
    ]);
    await user.click(screen.getByRole('menuitem', { name: 'Snapshot' }));
    expect(await screen.findByText('snapshot dialog')).toBeTruthy();
    unmount();

    const viewer = renderCard(base({}), 554, { logs: true, write: false, incidents: false });
    await user.click(screen.getByRole('button', { name: 'Actions for checkout' }));
    expect((await screen.findAllByRole('menuitem')).map((m) => m.textContent)).toEqual(['Zoom In', 'Snapshot']);
    viewer.unmount();

    renderCard(base({}), 554);
    expect(screen.queryByRole('button', { name: 'Actions for checkout' })).toBeNull();
  });

  it('a component pushed by a remote agent shows the agent badge with its name; the console\'s own shows none', () => {
    const agentId = '5f0c4c6e-2d0b-4b8e-9a51-0c7f4a1b2c3d';
    const qc = new QueryClient();
    const { unmount } = renderWithProviders(
      <QueryClientProvider client={qc}>
        <AgentNamesContext.Provider value={new Map([[agentId, 'eu-west-prod']])}>
          <TopologyCard component={base({ agent_id: agentId })} width={554} zoomHref="/topology/c1" />
        </AgentNamesContext.Provider>
      </QueryClientProvider>,
      { url: '/topology' },
    );
    expect(within(screen.getByRole('article', { name: 'checkout' })).getByText('Agent eu-west-prod')).toBeTruthy();
    unmount();
    renderCard(base({ agent_id: '00000000-0000-0000-0000-000000000000' }), 554);
    expect(screen.queryByText(/^Agent /)).toBeNull();
  });
});
