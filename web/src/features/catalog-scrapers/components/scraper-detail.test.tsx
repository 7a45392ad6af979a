// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderWithProviders } from '../../../lib/testing';
import { ScraperDetail } from './scraper-detail';

// the page's header reads the build's version
vi.hoisted(() => Object.assign(globalThis, { __APP_VERSION__: 'test' }));

const ID = '0192f0c0-0000-7000-8000-0000000000aa';
const FLUX = { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' };

/** /api/db answers the one scraper; the schema and anything else answer empty. */
function stubServer(row: Record<string, unknown>) {
  const fetch = vi.fn(async (url: string) => {
    const body = String(url).startsWith('/api/db/config_scrapers') ? [row] : String(url).startsWith('/api/schemas/') ? {} : [];
    return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetch);
}

function renderDetail(row: Record<string, unknown>) {
  stubServer({ id: ID, name: 'cluster', namespace: 'ops', spec: { schedule: '@every 1h', kubernetes: [{ clusterName: 'prod' }] }, updated_at: '2026-11-26T10:00:00Z', ...row });
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  renderWithProviders(
    <QueryClientProvider client={qc}>
      <ScraperDetail
        id={ID}
        canWrite
        currentUserId="p1"
        listHref="/catalog/scrapers"
        scraperHref={(id) => `/catalog/scrapers/${id}`}
        afterWrite="/settings/integrations"
        renderJobDetails={() => null}
      />
    </QueryClientProvider>,
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('ScraperDetail source (spec 001 §4)', () => {
  it('a ScrapeConfig that Flux applies is read-only from the start, linked to its kustomization', async () => {
    renderDetail({ source: 'KubernetesCRD', labels: FLUX });
    expect(await screen.findByText('Linked to Flux kustomization flux-system/apps')).toBeTruthy();
    expect((screen.getByRole('textbox', { name: 'Cluster name' }) as HTMLInputElement).disabled).toBe(true);
    expect(screen.queryByRole('button', { name: 'Update' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
  });

  it('a ScrapeConfig no GitOps tool manages is edited here (the server patches the CR)', async () => {
    renderDetail({ source: 'KubernetesCRD', labels: { team: 'ops' } });
    expect(await screen.findByRole('button', { name: 'Update' })).toBeTruthy();
    expect((screen.getByRole('textbox', { name: 'Cluster name' }) as HTMLInputElement).disabled).toBe(false);
    expect(screen.getByText(/comes from a custom resource: saving here updates the resource in the cluster/)).toBeTruthy();
  });
});
