// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { renderWithProviders } from '../../../lib/testing';
import type { ResourceRow } from '../api';
import { RESOURCE_DESCRIPTORS } from '../descriptors';
import { ResourceTable } from './resource-table';

const ALL = ['Name', 'Source', 'Schedule', 'Namespace', 'Job Status', 'Last Run', 'Last Failed', 'Tags', 'Created', 'Updated', 'Created By'];

const row: ResourceRow = {
  id: '0192f0c0-0000-7000-8000-000000000001',
  name: 'cluster-map',
  namespace: 'ops',
  schedule: '@every 5m',
  source: 'UI',
  labels: { env: 'prod' },
  job_status: 'FAILED',
  created_at: '2026-11-01T10:00:00Z',
  updated_at: '2026-11-02T10:00:00Z',
  created_by: { id: 'p1', name: 'Ada Admin', avatar: null },
  team_members: [{ person_id: 'p1' }, { person_id: 'p2' }],
};

function headers(table: string): string[] {
  renderWithProviders(<ResourceTable descriptor={RESOURCE_DESCRIPTORS[table]} rows={[row]} loading={false} error={null} onOpen={() => {}} />);
  return within(screen.getByRole('table', { name: RESOURCE_DESCRIPTORS[table].title }))
    .getAllByRole('columnheader')
    .map((h) => h.textContent?.trim() ?? '');
}

describe('settings resource list columns (spec 001 §2)', () => {
  it('health checks hide Namespace and keep the rest in order', () => {
    expect(headers('canaries')).toEqual(ALL.filter((c) => c !== 'Namespace'));
  });

  it('topologies hide Schedule but show Namespace', () => {
    const shown = headers('topologies');
    expect(shown).toEqual(ALL.filter((c) => c !== 'Schedule'));
    expect(screen.getByRole('cell', { name: 'ops' })).toBeTruthy();
    expect(screen.queryByRole('cell', { name: '@every 5m' })).toBeNull();
  });

  it('scrapers hide both Schedule and Namespace', () => {
    expect(headers('config_scrapers')).toEqual(ALL.filter((c) => c !== 'Schedule' && c !== 'Namespace'));
  });

  it('teams add Members after Name and count them', () => {
    const shown = headers('teams');
    expect(shown.slice(0, 2)).toEqual(['Name', 'Members']);
    expect(shown).not.toContain('Namespace');
    expect(shown).not.toContain('Schedule');
    const cells = within(screen.getAllByRole('row')[1]).getAllByRole('cell');
    expect(cells[1].textContent).toBe('2');
  });

  it('says No resources found without rows', () => {
    renderWithProviders(<ResourceTable descriptor={RESOURCE_DESCRIPTORS.topologies} rows={[]} loading={false} error={null} onOpen={() => {}} />);
    expect(screen.getByText('No resources found')).toBeTruthy();
  });
});
