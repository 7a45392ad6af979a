import { describe, expect, it } from 'vitest';
import { LOCAL_AGENT } from '../settings-resources/source-link';
import { onAgent, scraperSource } from './source';

describe('scraperSource (spec 001 §4 source link rules)', () => {
  it('UI or empty: made here, editable', () => {
    expect(scraperSource({ source: 'UI', agent_id: LOCAL_AGENT })).toEqual({ label: 'UI', href: null, editable: true });
    expect(scraperSource({ source: null })).toMatchObject({ label: 'UI', editable: true });
  });

  it('an agent other than the local one: Linked to {agent}, read-only, not run here', () => {
    const row = { source: 'UI', agent_id: '0190a4b2-0000-7000-8000-000000000001', agent: { id: 'x', name: 'eu-cluster' } };
    expect(scraperSource(row)).toMatchObject({ label: 'Linked to eu-cluster', editable: false });
    expect(onAgent(row)).toBe(true);
    expect(onAgent({ agent_id: LOCAL_AGENT })).toBe(false);
  });

  it('a ScrapeConfig custom resource links to the cluster page and is edited through the CR', () => {
    expect(scraperSource({ source: 'KubernetesCRD' })).toEqual({ label: 'KubernetesCRD', href: '/settings/kubernetes', editable: true });
  });

  it('a custom resource Flux or Argo CD applies is theirs: Linked to its owner, read-only', () => {
    const flux = { source: 'KubernetesCRD', labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' } };
    expect(scraperSource(flux)).toEqual({ label: 'Linked to Flux kustomization flux-system/apps', href: null, editable: false });
    expect(scraperSource({ source: 'KubernetesCRD', labels: { 'argocd.argoproj.io/instance': 'guestbook' } })).toMatchObject({ label: 'Linked to Argo CD application guestbook', editable: false });
    // the same labels on a scraper made here are only labels
    expect(scraperSource({ source: 'UI', labels: flux.labels })).toMatchObject({ label: 'UI', editable: true });
  });

  it('ConfigFile is the local file; any other source is its owner\'s', () => {
    expect(scraperSource({ source: 'ConfigFile' })).toMatchObject({ label: 'Linked to local file', editable: false });
    expect(scraperSource({ source: 'Push' })).toMatchObject({ label: 'Linked to Push', editable: false, href: null });
  });
});
