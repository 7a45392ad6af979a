// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import type { KindStatus } from '@contracts/kubernetes';
import { renderWithProviders } from '../../../lib/testing';
import { InvalidObjectsTable, KindsTable } from './kubernetes-tables';

const kind = (k: Partial<KindStatus> & { kind: string }): KindStatus => ({
  group: 'canaries.flanksource.com', version: 'v1', plural: `${k.kind.toLowerCase()}s`,
  watching: true, objects: 0, lastSyncAt: null, lastError: null, ...k,
});

describe('KindsTable', () => {
  it('says whether each kind is watched, failing or not yet synced', () => {
    renderWithProviders(
      <KindsTable
        connected
        kinds={[
          kind({ kind: 'Canary', plural: 'canaries', objects: 12, lastSyncAt: new Date().toISOString() }),
          kind({ kind: 'Topology', watching: false, lastError: 'the server could not find the requested resource' }),
          kind({ kind: 'Playbook', watching: false }),
        ]}
      />,
    );
    const row = (name: string) => screen.getAllByRole('row').find((r) => within(r).queryByText(name, { exact: true }))!;
    expect(within(row('Canary')).getByText('Watching')).toBeTruthy();
    expect(within(row('Canary')).getByText('12')).toBeTruthy();
    expect(within(row('Canary')).getByText('canaries.canaries.flanksource.com/v1')).toBeTruthy();
    expect(within(row('Topology')).getByText('Error')).toBeTruthy();
    expect(within(row('Topology')).getByText('the server could not find the requested resource')).toBeTruthy();
    expect(within(row('Topology')).getByText('Never')).toBeTruthy();
    expect(within(row('Playbook')).getByText('Not watching')).toBeTruthy();
  });

  it('explains an empty list without a cluster', () => {
    renderWithProviders(<KindsTable connected={false} kinds={[]} />);
    expect(screen.getByText('Nothing is watched without a cluster connection')).toBeTruthy();
  });
});

describe('InvalidObjectsTable', () => {
  it('lists invalid custom resources with their error, or says all are valid', () => {
    const { unmount } = renderWithProviders(
      <InvalidObjectsTable
        objects={[{ kind: 'Canary', namespace: 'apps', name: 'broken', error: 'spec.http[0].url: Required', at: new Date().toISOString() }]}
      />,
    );
    expect(screen.getByText('apps/broken')).toBeTruthy();
    expect(screen.getByText('spec.http[0].url: Required')).toBeTruthy();
    unmount();
    renderWithProviders(<InvalidObjectsTable objects={[]} />);
    expect(screen.getByText('Every custom resource is valid')).toBeTruthy();
  });
});
