import { describe, expect, it } from 'vitest';
import { RESOURCES, can, effectiveRoles, featureStates, primaryRole, type Resource } from './rbac.js';

// The spec's permission table (document 000, section 6), written out again by hand so a slip in rbac.ts shows.
const NOT_FOR_RESPONDERS: Resource[] = ['rbac', 'identities', 'connections'];
const INCIDENT_WORK: Resource[] = ['responder', 'incident', 'evidences', 'comments'];
const EDITOR_CANNOT_WRITE: Resource[] = ['connections', 'identities', 'rbac'];

describe('permission table', () => {
  it.each(RESOURCES)('%s: read and write per role as the spec says', (r) => {
    expect(can(['admin'], r, 'read')).toBe(true);
    expect(can(['admin'], r, 'write')).toBe(true);
    expect(can(['editor'], r, 'read')).toBe(true);
    expect(can(['editor'], r, 'write')).toBe(!EDITOR_CANNOT_WRITE.includes(r));
    for (const role of ['commander', 'responder'] as const) {
      expect(can([role], r, 'read')).toBe(!NOT_FOR_RESPONDERS.includes(r));
      expect(can([role], r, 'write')).toBe(INCIDENT_WORK.includes(r));
    }
    expect(can(['viewer'], r, 'read')).toBe(!NOT_FOR_RESPONDERS.includes(r));
    expect(can(['viewer'], r, 'write')).toBe(false);
    // no role at all is a viewer
    expect(can([], r, 'read')).toBe(can(['viewer'], r, 'read'));
    expect(can([], r, 'write')).toBe(false);
  });

  it('combines roles: a responder who is also an editor writes what either may', () => {
    expect(can(['responder', 'editor'], 'playbooks', 'write')).toBe(true);
    expect(can(['responder', 'editor'], 'incident', 'write')).toBe(true);
    expect(can(['responder', 'viewer'], 'playbooks', 'write')).toBe(false);
  });

  it('ignores unknown role names, falling back to viewer', () => {
    expect(effectiveRoles(['root', 'superuser'])).toEqual(['viewer']);
    expect(can(['root'], 'identities', 'read')).toBe(false);
    expect(primaryRole(['viewer', 'editor', 'responder'])).toBe('editor');
  });
});

describe('feature flags', () => {
  it('disables a feature whose property is "true" and leaves the rest on', () => {
    const f = featureStates({ 'incidents.disable': 'true', 'logs.disable': 'false' });
    expect(f.incidents).toBe(false);
    expect(f.logs).toBe(true);
    expect(f.health).toBe(true);
  });

  it('applies the hierarchy: config, topology and health take their settings areas with them', () => {
    const f = featureStates({ 'config.disable': 'true', 'topology.disable': 'true', 'health.disable': 'true' });
    expect(f['settings.config_scraper']).toBe(false);
    expect(f['settings.topology']).toBe(false);
    expect(f['settings.health']).toBe(false);
    expect(f['settings.job_history']).toBe(false);
    expect(f['settings.connections']).toBe(true);
  });
});
