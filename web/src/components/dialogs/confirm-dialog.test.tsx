// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { useState } from 'react';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../lib/testing';
import { ConfirmDialog } from './confirm-dialog';

describe('ConfirmDialog', () => {
  it('confirms, cancels, and Escape cancels', async () => {
    const user = userEvent.setup();
    const onConfirm = vi.fn();
    const onCancel = vi.fn();
    renderWithProviders(
      <ConfirmDialog open title="Delete User ?" description="Ada will be signed out." confirmLabel="Delete" danger onConfirm={onConfirm} onCancel={onCancel} />,
    );
    expect(screen.getByRole('dialog', { name: 'Delete User ?' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    expect(onConfirm).toHaveBeenCalledTimes(1);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await user.keyboard('{Escape}');
    expect(onCancel).toHaveBeenCalledTimes(2);
  });

  it('waits while busy: no second confirm, Escape does nothing', async () => {
    const user = userEvent.setup();
    const onConfirm = vi.fn();
    const onCancel = vi.fn();
    renderWithProviders(
      <ConfirmDialog open title="Delete" description="Sure?" confirmLabel="Delete" busy onConfirm={onConfirm} onCancel={onCancel} />,
    );
    await user.click(screen.getByRole('button', { name: 'Delete…' }));
    await user.keyboard('{Escape}');
    expect(onConfirm).not.toHaveBeenCalled();
    expect(onCancel).not.toHaveBeenCalled();
  });

  it('focuses the button initialFocus names when it opens', async () => {
    renderWithProviders(
      <ConfirmDialog open title="Delete" description="Sure?" confirmLabel="Delete" initialFocus="cancel" onConfirm={() => {}} onCancel={() => {}} />,
    );
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' })));
  });

  it('gives focus back to the button that opened it once it closes', async () => {
    const user = userEvent.setup();
    function Opener() {
      const [open, setOpen] = useState(false);
      return (
        <>
          <button type="button" onClick={() => setOpen(true)}>
            Delete row
          </button>
          <ConfirmDialog open={open} title="Delete" description="Sure?" confirmLabel="Delete" onConfirm={() => setOpen(false)} onCancel={() => setOpen(false)} />
        </>
      );
    }
    renderWithProviders(<Opener />);
    const opener = screen.getByRole('button', { name: 'Delete row' });
    await user.click(opener);
    // the surface is aria-hidden while it animates in: wait until its buttons can be found by role
    await user.click(await screen.findByRole('button', { name: 'Delete' }, { timeout: 10_000 }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull(), { timeout: 10_000 });
    await waitFor(() => expect(document.activeElement).toBe(opener), { timeout: 10_000 });
  });
});
