// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import type { ReactNode } from 'react';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../lib/testing';
import { SessionContext } from './session-context';
import { SignedInRoutes } from './signed-in-routes';
import { sessionStub } from './session-stub';

// vite defines the version at build time; the shell's brand module reads it
vi.hoisted(() => Object.assign(globalThis, { __APP_VERSION__: 'test' }));
// the routing is under test, not the shell, the live updates or the Health page itself
vi.mock('../lib/live-updates', () => ({ useLiveUpdates: () => undefined }));
vi.mock('./shell/app-shell', () => ({ AppShell: ({ children }: { children: ReactNode }) => <>{children}</> }));
vi.mock('./routes/health-page', () => ({ HealthPage: () => <p>the health page</p> }));

function renderAt(url: string) {
  return renderWithProviders(
    <SessionContext.Provider value={sessionStub()}>
      <SignedInRoutes />
    </SessionContext.Provider>,
    { url },
  );
}

describe('signed-in routes: the landing page', () => {
  it('sends / to Health, a page that works, while topology is not built', async () => {
    const r = renderAt('/');
    expect(await screen.findByText('the health page')).toBeTruthy();
    expect(r.location()).toBe('/health');
  });

  it("the topology placeholder's button leads to Health, not back to itself", async () => {
    const user = userEvent.setup();
    const r = renderAt('/topology');
    expect(await screen.findByText('Not available in this version')).toBeTruthy();
    const button = screen.getByRole('link', { name: 'Go to Health' });
    expect(button.getAttribute('href')).toBe('/health');
    await user.click(button);
    expect(await screen.findByText('the health page')).toBeTruthy();
    expect(r.location()).toBe('/health');
  });
});
