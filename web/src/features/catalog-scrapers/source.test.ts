import { describe, expect, it } from 'vitest';
import { LOCAL_AGENT, onAgent, scraperSource } from './source';

describe('scraperSource (spec 001 §4 source link rules)', () => {
  it('UI or empty: made here, editable', () => {
    expect(scraperSource({ source: 'UI', agent_id: LOCAL_AGENT })).toEqual({ label: 'UI', href: null, editable: true, customResource: false });
    expect(scraperSource({ source: null })).toMatchObject({ label: 'UI', editable: true });
  });

  it('an agent other than the local one: Linked to {agent}, read-only, not run here', () => {
    const row = { source: 'UI', agent_id: '0190a4b2-0000-7000-8000-000000000001', agent: { name: 'eu-cluster' } };
    expect(scraperSource(row)).toMatchObject({ label: 'Linked to eu-cluster', editable: false });
    expect(onAgent(row)).toBe(true);
    expect(onAgent({ agent_id: LOCAL_AGENT })).toBe(false);
  });

  it('a ScrapeConfig custom resource links to the cluster page and is edited through the CR', () => {
    expect(scraperSource({ source: 'KubernetesCRD' })).toEqual({ label: 'KubernetesCRD', href: '/settings/kubernetes', editable: true, customResource: true });
  });

  it('ConfigFile is the local file; any other source is its owner\'s', () => {
    expect(scraperSource({ source: 'ConfigFile' })).toMatchObject({ label: 'Linked to local file', editable: false });
    expect(scraperSource({ source: 'Push' })).toMatchObject({ label: 'Linked to Push', editable: false, href: null });
  });
});
