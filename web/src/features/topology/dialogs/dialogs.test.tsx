// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactElement } from 'react';
import { renderWithProviders } from '../../../lib/testing';
import { toast } from '../../../lib/toast';
import { json, stubServer } from '../sidebar/test-server';
import { LinkToCatalogDialog, LinkToIncidentDialog, SnapshotDialog } from '.';
import { componentEvidence } from './incident-link-api';
import { snapshotQuery } from './snapshot-dialog';

const component = { id: 'c1', name: 'payments' };

function renderDialog(ui: ReactElement) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return renderWithProviders(<QueryClientProvider client={qc}>{ui}</QueryClientProvider>);
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('Snapshot', () => {
  it('sends the range as instants and the related choice', () => {
    const now = new Date('2026-11-26T12:00:00Z');
    expect(snapshotQuery({ type: 'relative', display: 'Last 3 hours', from: 'now-3h', to: 'now' }, false, now)).toEqual({
      start: '2026-11-26T09:00:00.000Z', end: '2026-11-26T12:00:00.000Z', related: false,
    });
  });

  it('says Downloading... while the zip comes, saves it under the server name and closes', async () => {
    const user = userEvent.setup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const calls = stubServer({
      'GET /api/snapshot/topology/c1': () =>
        gate.then(() => new Response('PK', { status: 200, headers: { 'content-type': 'application/zip', 'content-disposition': 'attachment; filename="snap.zip"' } })),
    });
    URL.createObjectURL = vi.fn(() => 'blob:x');
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const onClose = vi.fn();
    renderDialog(<SnapshotDialog open onClose={onClose} component={component} />);
    expect(screen.getByText('Download payments snapshot')).toBeTruthy();
    await user.click(screen.getByRole('checkbox', { name: 'Include related components' }));
    await user.click(screen.getByRole('button', { name: 'Download' }));
    expect(await screen.findByRole('button', { name: 'Downloading...' })).toBeTruthy();
    release();
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(click).toHaveBeenCalled();
    expect(calls[0].url.searchParams.get('related')).toBe('false');
    expect(calls[0].url.searchParams.get('start')).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('shows "Error downloading file" when the server refuses', async () => {
    const user = userEvent.setup();
    stubServer({ 'GET /api/snapshot/topology/c1': () => json({ message: 'no' }, 500) });
    renderDialog(<SnapshotDialog open onClose={() => {}} component={component} />);
    await user.click(screen.getByRole('button', { name: 'Download' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Error downloading file');
  });
});

describe('Link to Catalog', () => {
  const routes = (post: () => unknown) => ({
    'GET /api/db/config_names': () => [{ id: 'cfg-1', name: 'payments-deploy', type: 'Kubernetes::Deployment' }],
    'POST /api/db/config_component_relationships': post,
  });

  it('keeps Link disabled until an item is chosen, then posts a manual link with the toast', async () => {
    const user = userEvent.setup();
    const calls = stubServer(routes(() => new Response(null, { status: 201 })));
    const success = vi.spyOn(toast, 'success').mockImplementation(() => undefined as never);
    const onClose = vi.fn();
    renderDialog(<LinkToCatalogDialog open onClose={onClose} component={component} />);
    expect((screen.getByRole('button', { name: 'Link' }) as HTMLButtonElement).disabled).toBe(true);
    await user.click(screen.getByRole('combobox', { name: 'Catalog item' }));
    await user.click(await screen.findByRole('option', { name: 'payments-deploy (Kubernetes::Deployment)' }));
    await user.click(screen.getByRole('button', { name: 'Link' }));
    await waitFor(() => expect(success).toHaveBeenCalledWith('config link successful'));
    expect(onClose).toHaveBeenCalled();
    expect(calls.find((c) => c.method === 'POST' && c.url.pathname.endsWith('relationships'))?.body).toEqual({ component_id: 'c1', config_id: 'cfg-1', selector_id: 'manual' });
    expect(calls.find((c) => c.url.pathname === '/api/db/config_names')?.url.searchParams.get('limit')).toBe('50');
  });

  it("shows the server's message on a 409", async () => {
    const user = userEvent.setup();
    stubServer(routes(() => json({ code: '23505', message: 'payments is already linked to payments-deploy' }, 409)));
    renderDialog(<LinkToCatalogDialog open onClose={() => {}} component={component} />);
    await user.click(screen.getByRole('combobox', { name: 'Catalog item' }));
    await user.click(await screen.findByRole('option', { name: /payments-deploy/ }));
    await user.click(screen.getByRole('button', { name: 'Link' }));
    expect((await screen.findByRole('alert')).textContent).toBe('payments is already linked to payments-deploy');
  });
});

describe('Link to Incident', () => {
  it('the component becomes topology evidence', () => {
    expect(componentEvidence(component, '  ')).toEqual({ type: 'topology', component_id: 'c1', description: 'payments', evidence: { name: 'payments' } });
  });

  it('asks for an incident, then links to the chosen one under its root hypothesis', async () => {
    const user = userEvent.setup();
    const calls = stubServer({
      'GET /api/db/incidents': () => [{ id: 'i1', incident_id: 'INC-7', title: 'Payments slow', status: 'open', hypotheses: [{ id: 'h2', type: 'factor' }, { id: 'h1', type: 'root' }] }],
      'POST /api/db/rpc/link_to_incident': () => ({ hypothesis: { id: 'h1' }, evidence: { id: 'e1' } }),
    });
    const success = vi.spyOn(toast, 'success').mockImplementation(() => undefined as never);
    renderDialog(<LinkToIncidentDialog open onClose={() => {}} component={component} />);
    await user.click(screen.getByRole('button', { name: 'Link' }));
    expect(await screen.findByText('Must select or create an incident')).toBeTruthy();
    await user.click(screen.getByRole('combobox', { name: 'Incident' }));
    await user.click(await screen.findByRole('option', { name: /INC-7/ }));
    await user.click(screen.getByRole('button', { name: 'Link' }));
    await waitFor(() => expect(success).toHaveBeenCalledWith('Linked to incident successfully'));
    expect(calls.find((c) => c.method === 'POST' && c.url.pathname.includes('rpc'))?.body).toEqual({
      incident_id: 'i1', hypothesis_id: 'h1', evidence: { type: 'topology', component_id: 'c1', description: 'payments', evidence: { name: 'payments' } },
    });
  });
});
