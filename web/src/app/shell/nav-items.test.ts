import { describe, expect, it } from 'vitest';
import { paths } from '../paths';
import { isBuilt } from '../route-table';
import { sessionStub } from '../session-stub';
import { homePath, navFor, withLoggingBackends } from './nav-items';

describe('the landing page (where / goes)', () => {
  it('is the topology, the Dashboard, now that it is built (spec 001: / redirects to /topology)', () => {
    expect(isBuilt(paths.topology)).toBe(true);
    expect(homePath(sessionStub())).toBe(paths.topology);
  });

  it('falls to the next entry when topology is off or not readable, and skips what the user may not open', () => {
    expect(homePath(sessionStub({ off: ['topology'] }))).toBe(paths.health);
    expect(homePath(sessionStub({ deny: ['topologies'] }))).toBe(paths.health);
    expect(homePath(sessionStub({ off: ['topology', 'health'] }))).toBe(paths.incidents);
    expect(homePath(sessionStub({ deny: ['topologies', 'canaries', 'incident'] }))).toBe(paths.catalog);
    expect(homePath(sessionStub({ mode: 'check-runner' }))).toBe(paths.health);
  });

  it('points the sidebar Dashboard entry at the topology, and drops it with topology.disable', () => {
    expect(navFor(sessionStub()).main.find((i) => i.label === 'Dashboard')?.href).toBe(paths.topology);
    expect(navFor(sessionStub({ off: ['topology'] })).main.find((i) => i.label === 'Dashboard')).toBeUndefined();
  });
});

describe('the settings menu', () => {
  it('lists each logging backend by name right after Log Backends', () => {
    const settings = navFor(sessionStub()).settings;
    const labels = withLoggingBackends(settings, [{ id: 'a1', name: 'elastic' }, { id: 'b2', name: 'loki' }]).map((i) => i.label);
    const at = labels.indexOf('Log Backends');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(labels.slice(at, at + 3)).toEqual(['Log Backends', 'elastic', 'loki']);
    expect(labels.length).toBe(settings.length + 2);
  });
});
