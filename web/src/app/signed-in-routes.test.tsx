// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import type { ReactNode } from 'react';
import { cleanup, screen } from '@testing-library/react';
import { renderWithProviders } from '../lib/testing';
import { SessionContext } from './session-context';
import { SignedInRoutes } from './signed-in-routes';
import { sessionStub } from './session-stub';

// vite defines the version at build time; the shell's brand module reads it
vi.hoisted(() => Object.assign(globalThis, { __APP_VERSION__: 'test' }));
// the routing is under test, not the shell, the live updates or the Health page itself
vi.mock('../lib/live-updates', () => ({ useLiveUpdates: () => undefined }));
vi.mock('./shell/app-shell', () => ({ AppShell: ({ children }: { children: ReactNode }) => <div data-testid="shell">{children}</div> }));
vi.mock('./routes/health-page', () => ({ HealthPage: () => <p>the health page</p> }));
vi.mock('./routes/topology-page', () => ({
  TopologyRoutePage: () => <p>the topology page</p>,
  TopologyViewRoutePage: () => <p>the embedded card</p>,
}));

function renderAt(url: string, session = sessionStub()) {
  return renderWithProviders(
    <SessionContext.Provider value={session}>
      <SignedInRoutes />
    </SessionContext.Provider>,
    { url },
  );
}

describe('signed-in routes: the landing page', () => {
  it('sends / to the topology, the Dashboard (spec 001 §2)', async () => {
    const r = renderAt('/');
    expect(await screen.findByText('the topology page')).toBeTruthy();
    expect(r.location()).toBe('/topology');
  });

  it('sends / to the next entry, Health, while topology.disable is set', async () => {
    const r = renderAt('/', sessionStub({ off: ['topology'] }));
    expect(await screen.findByText('the health page')).toBeTruthy();
    expect(r.location()).toBe('/health');
  });

  it('sends / to Health for a user who may not read topologies', async () => {
    const r = renderAt('/', sessionStub({ deny: ['topologies'] }));
    expect(await screen.findByText('the health page')).toBeTruthy();
    expect(r.location()).toBe('/health');
  });

  it('opens /topology/{id} and /view/topology/{id} on their pages', async () => {
    renderAt('/topology/8f0c2f7e-0000-4000-8000-000000000001');
    expect(await screen.findByText('the topology page')).toBeTruthy();
    expect(screen.queryByTestId('shell')).toBeTruthy();
    cleanup();
    renderAt('/view/topology/8f0c2f7e-0000-4000-8000-000000000001');
    expect(await screen.findByText('the embedded card')).toBeTruthy();
    // embeddable: the card alone, without the sidebar and top bar
    expect(screen.queryByTestId('shell')).toBeNull();
  });
});
