import { describe, expect, it } from 'vitest';
import { paths } from '../paths';
import { isBuilt } from '../route-table';
import { sessionStub } from '../session-stub';
import { homePath, navFor, withLoggingBackends } from './nav-items';

describe('the landing page (where / goes)', () => {
  it('is Health while the dashboard (topology) is not built: never the "Not available" placeholder', () => {
    expect(isBuilt(paths.topology)).toBe(false);
    expect(homePath(sessionStub())).toBe(paths.health);
  });

  it('skips what the user may not open, and pages that are not built', () => {
    expect(homePath(sessionStub({ off: ['health'] }))).toBe(paths.incidents);
    // the catalog is built: the next page such a user can open (logs, playbooks and topology are not built yet)
    expect(homePath(sessionStub({ deny: ['canaries', 'incident'] }))).toBe(paths.catalog);
    expect(homePath(sessionStub({ deny: ['canaries', 'incident'], off: ['config'] }))).not.toMatch(/^\/(logs|playbooks|catalog|topology)/);
    expect(homePath(sessionStub({ mode: 'check-runner' }))).toBe(paths.health);
  });

  it('points the sidebar Dashboard entry at the landing page, not the placeholder', () => {
    const dashboard = navFor(sessionStub()).main.find((i) => i.label === 'Dashboard');
    expect(dashboard?.href).toBe(paths.home);
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
