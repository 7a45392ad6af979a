// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../../lib/testing';
import { FeatureFlag, LOCAL_FLAG_TEXT } from '../api';
import { FeatureFlagTable } from './feature-flag-table';

const flag = (name: string, source?: string) =>
  FeatureFlag.parse({ name, value: 'true', source, created_by: null, created_at: null, updated_at: null });

describe('FeatureFlagTable', () => {
  it('offers edit and delete on database flags, and refuses them on local ones', async () => {
    const user = userEvent.setup();
    const onEdit = vi.fn();
    const onDelete = vi.fn();
    renderWithProviders(
      <FeatureFlagTable
        flags={[flag('health.disable'), flag('logs.disable', 'local')]}
        loading={false}
        error={null}
        actions={{ onEdit, onDelete }}
      />,
    );

    // rows from the database have no source column: they read as UI
    expect(screen.getAllByText('UI')).toHaveLength(1);
    expect(screen.getByText('local')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Edit health.disable' }));
    expect(onEdit).toHaveBeenCalledWith(expect.objectContaining({ name: 'health.disable' }));

    const locked = screen.getAllByRole('button', { name: LOCAL_FLAG_TEXT });
    expect(locked).toHaveLength(2);
    for (const button of locked) {
      expect(button.getAttribute('aria-disabled')).toBe('true');
      await user.click(button);
    }
    expect(onEdit).toHaveBeenCalledTimes(1);
    expect(onDelete).not.toHaveBeenCalled();
  });

  it('reads unknown sources as UI', () => {
    expect(flag('x', 'something-else').source).toBe('UI');
  });
});
