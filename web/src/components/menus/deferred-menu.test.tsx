// @vitest-environment jsdom
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen } from '@testing-library/react';
import { MenuItem, MenuList } from '@fluentui/react-components';
import { renderWithProviders } from '../../lib/testing';

// The menu's code is loaded once per page (module state): each test starts from a fresh module, as a fresh page does.
async function freshDeferredMenu() {
  vi.resetModules();
  return (await import('./deferred-menu')).DeferredMenu;
}

async function renderMenu() {
  const DeferredMenu = await freshDeferredMenu();
  renderWithProviders(
    <DeferredMenu trigger={(props) => <button type="button" {...props}>Account</button>}>
      <MenuList>
        <MenuItem>Sign out</MenuItem>
      </MenuList>
    </DeferredMenu>,
  );
  return screen.getByRole('button', { name: 'Account' });
}

describe('DeferredMenu', () => {
  beforeEach(() => {
    // no idle loading in these tests: only the user's own actions load the menu
    vi.stubGlobal('requestIdleCallback', () => 0);
    vi.stubGlobal('cancelIdleCallback', () => {});
  });

  it('opens when the code arrives between the press and the release, although no click reaches the new button', async () => {
    const standIn = await renderMenu();
    fireEvent.pointerDown(standIn);
    // the swap has happened (a new button) and the release lands on it: a browser fires no click in this case
    expect(await screen.findByRole('menu')).toBeTruthy();
    expect(screen.getByRole('menuitem', { name: 'Sign out' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Account' })).not.toBe(standIn);
  });

  it('a whole click on the stand-in opens the menu once it has loaded', async () => {
    const standIn = await renderMenu();
    fireEvent.pointerDown(standIn);
    fireEvent.click(standIn);
    expect(await screen.findByRole('menu')).toBeTruthy();
  });

  it('hovering only loads the code: the menu stays closed until a click', async () => {
    const standIn = await renderMenu();
    fireEvent.pointerEnter(standIn);
    await vi.waitFor(() => expect(screen.getByRole('button', { name: 'Account' })).not.toBe(standIn));
    expect(screen.queryByRole('menu')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Account' }));
    expect(await screen.findByRole('menu')).toBeTruthy();
  });
});
