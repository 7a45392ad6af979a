// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { TopologyComponent } from '@contracts/topology';
import { renderWithProviders } from '../../../lib/testing';
import { toast } from '../../../lib/toast';
import { TopologySidebar } from './topology-sidebar';
import { json, stubServer } from './test-server';

// the 7-day strip and the impact panel are H8's, tested beside them
vi.mock('../history', () => ({ HealthHistorySlot: () => null }));
vi.mock('../impact', () => ({ ImpactPanel: () => <p>impact</p> }));

const component: TopologyComponent = { id: 'c1', name: 'payments', type: 'Service', status: 'healthy', summary: {} };

const routes = (manualLinks: string[] = ['cfg-1']) => ({
  'GET /api/db/components': () => [{ id: 'c1', name: 'payments', type: 'Service', owner: 'sre', external_id: 'ext-9', status: 'healthy', status_reason: 'all good', labels: { tier: 'gold' }, properties: [{ name: 'version', text: '1.2.3' }], updated_at: '2026-11-26T10:00:00Z' }],
  'GET /api/db/config_component_relationships': () => [
    { config_id: 'cfg-1', selector_id: manualLinks.includes('cfg-1') ? 'manual' : 'sel', configs: { id: 'cfg-1', name: 'payments-deploy', type: 'Kubernetes::Deployment', deleted_at: null, health: 'healthy' } },
    { config_id: 'cfg-2', selector_id: 'sel', configs: { id: 'cfg-2', name: 'old-pod', type: 'Kubernetes::Pod', deleted_at: '2026-11-01T00:00:00Z' } },
  ],
  'DELETE /api/db/config_component_relationships': () => new Response(null, { status: 204 }),
  'GET /api/db/config_changes': () => [{ id: 'ch1', config_id: 'cfg-1', change_type: 'diff', severity: 'info', summary: 'image bumped', source: 'k8s', created_at: '2026-11-26T09:00:00Z' }],
  'GET /api/db/config_analysis': () => json([{ id: 'a1', config_id: 'cfg-1', analyzer: 'trivy', analysis_type: 'security', severity: 'high', summary: 'CVE-1', status: 'open' }], 200, { 'content-range': '0-0/1' }),
  'GET /api/db/checks_by_component': () => [{ id: 'chk-1', name: 'payments-http', type: 'http', status: 'unhealthy', severity: 'info' }],
  'GET /api/db/incidents_by_component': () => [{ id: 'i1', incident_id: 'INC-7', title: 'Payments slow', status: 'open', severity: 'high', type: 'performance' }],
  'GET /api/db/team_components': () => [{ team_id: 't1', role: null, teams: { id: 't1', name: 'SRE', icon: null } }],
  'GET /api/db/playbook_runs': () => json([], 200, { 'content-range': '*/0' }),
});

function renderSidebar(props: Partial<Parameters<typeof TopologySidebar>[0]> = {}) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return renderWithProviders(
    <QueryClientProvider client={qc}>
      <TopologySidebar component={component} canWrite incidentsEnabled {...props} />
    </QueryClientProvider>,
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the topology sidebar', () => {
  it('opens Details first with the fresh row: type, owner, external id, reason, properties, labels', async () => {
    const calls = stubServer(routes());
    renderSidebar();
    const details = await screen.findByLabelText('Details');
    await within(details).findByText('sre');
    for (const text of ['Service', 'ext-9', 'all good', '1.2.3', 'version']) expect(within(details).getByText(text)).toBeTruthy();
    expect(within(details).getByText(/tier/)).toBeTruthy();
    expect(calls.find((c) => c.url.pathname === '/api/db/components')?.url.searchParams.get('id')).toBe('eq.c1');
  });

  it('shows count badges, one panel open at a time; deleted configs only with Show deleted', async () => {
    const user = userEvent.setup();
    stubServer(routes());
    renderSidebar();
    // the badge counts live configs only (the deleted one is hidden by default)
    expect(await screen.findByLabelText('1 Catalog')).toBeTruthy();
    expect(await screen.findByLabelText('1 Checks')).toBeTruthy();
    expect(await screen.findByLabelText('1 Insights')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: /Catalog/ }));
    const list = await screen.findByRole('list', { name: 'Linked catalog items' });
    expect(within(list).getByRole('link', { name: 'payments-deploy' }).getAttribute('href')).toBe('/catalog/cfg-1');
    expect(within(list).queryByText('old-pod')).toBeNull();
    expect(screen.queryByLabelText('Details')).toBeNull();
    await user.click(screen.getByRole('switch', { name: 'Show deleted' }));
    expect(await within(screen.getByRole('list', { name: 'Linked catalog items' })).findByText('old-pod')).toBeTruthy();
  });

  it('unlinks a manual link for writers with the reference toast; scraped links have no delete', async () => {
    const user = userEvent.setup();
    const calls = stubServer(routes());
    const success = vi.spyOn(toast, 'success').mockImplementation(() => undefined as never);
    renderSidebar();
    await user.click(screen.getByRole('button', { name: /Catalog/ }));
    await user.click(screen.getByRole('switch', { name: 'Show deleted' }));
    await screen.findByText('old-pod');
    expect(screen.queryByRole('button', { name: 'Delete link to old-pod' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Delete link to payments-deploy' }));
    await waitFor(() => expect(success).toHaveBeenCalledWith('Deleted config link successfully'));
    const del = calls.find((c) => c.method === 'DELETE');
    expect(Object.fromEntries(del!.url.searchParams)).toEqual({ component_id: 'eq.c1', config_id: 'eq.cfg-1', selector_id: 'eq.manual' });
  });

  it('has no delete for viewers', async () => {
    const user = userEvent.setup();
    stubServer(routes());
    renderSidebar({ canWrite: false });
    await user.click(screen.getByRole('button', { name: /Catalog/ }));
    await screen.findByText('payments-deploy');
    expect(screen.queryByRole('button', { name: /Delete link/ })).toBeNull();
  });

  it('links checks to the health drawer, incidents, changes and teams to their pages', async () => {
    const user = userEvent.setup();
    stubServer(routes());
    renderSidebar();
    await user.click(screen.getByRole('button', { name: /Checks/ }));
    expect((await screen.findByRole('link', { name: 'payments-http' })).getAttribute('href')).toBe('/health?checkId=chk-1');
    await user.click(screen.getByRole('button', { name: /Incidents/ }));
    expect((await screen.findByRole('link', { name: 'INC-7 Payments slow' })).getAttribute('href')).toBe('/incidents/i1');
    await user.click(screen.getByRole('button', { name: /Changes/ }));
    expect((await screen.findByRole('link', { name: /payments-deploy: diff — image bumped/ })).getAttribute('href')).toBe('/catalog/cfg-1/changes');
    await user.click(screen.getByRole('button', { name: /Teams/ }));
    expect((await screen.findByRole('link', { name: 'SRE' })).getAttribute('href')).toBe('/settings/teams/t1');
    await user.click(screen.getByRole('button', { name: /Playbooks/ }));
    expect(await screen.findByText('No playbook has run on this component')).toBeTruthy();
  });

  it('hides Incidents when the incidents feature is off', async () => {
    stubServer(routes());
    renderSidebar({ incidentsEnabled: false });
    await screen.findByRole('button', { name: /Catalog/ });
    expect(screen.queryByRole('button', { name: /Incidents/ })).toBeNull();
  });
});
