import { describe, expect, it } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import { inList, refreshSidebar, sidebarKeys, sidebarQuery, visibleConfigs, type LinkedConfig } from './api-sidebar';

const link = (id: string, deleted_at: string | null, selector_id = 'manual'): LinkedConfig => ({
  config_id: id, selector_id, configs: { id, name: id, type: 'Kubernetes::Pod', deleted_at },
});

describe('the sidebar queries', () => {
  it('reads linked configs through the reference FK embed, live links only', () => {
    expect(sidebarQuery.configs('c1')).toEqual({
      component_id: 'eq.c1',
      deleted_at: 'is.null',
      select: 'config_id,selector_id,configs!config_component_relationships_config_id_fkey(id,name,type,config_class,deleted_at,health,status)',
    });
  });

  it('pages insights 50 at a time over the linked configs, newest first', () => {
    const q = sidebarQuery.insights(['a', 'b'], 2);
    expect(q).toMatchObject({ config_id: 'in.("a","b")', limit: 50, offset: 100, order: 'last_observed.desc,id' });
  });

  it('lists changes of the linked configs only', () => {
    expect(sidebarQuery.changes(['a'])).toMatchObject({ config_id: 'in.("a")', order: 'created_at.desc', limit: 50 });
  });

  it('asks views keyed by the component for checks, incidents and teams', () => {
    expect(sidebarQuery.checks('c1').component_id).toBe('eq.c1');
    expect(sidebarQuery.incidents('c1')).toMatchObject({ component_id: 'eq.c1', order: 'created_at.desc' });
    expect(sidebarQuery.teams('c1').select).toBe('team_id,role,teams(id,name,icon)');
  });

  it('searches catalog names with ilike, 50 at most, and keeps PostgREST syntax out of the text', () => {
    expect(sidebarQuery.configSearch(' web ')).toMatchObject({ name: 'ilike.*web*', limit: 50, deleted_at: 'is.null' });
    expect(sidebarQuery.configSearch('a,b(c)*').name).toBe('ilike.*a b c*');
    expect(sidebarQuery.configSearch('')).not.toHaveProperty('name');
  });

  it('quotes ids in an in-list', () => {
    expect(inList(['x', 'y'])).toBe('in.("x","y")');
  });
});

describe('Show deleted', () => {
  it('is off: links to deleted configs are left out; on: they show', () => {
    const links = [link('live', null), link('gone', '2026-01-01T00:00:00Z')];
    expect(visibleConfigs(links, false).map((l) => l.config_id)).toEqual(['live']);
    expect(visibleConfigs(links, true).map((l) => l.config_id)).toEqual(['live', 'gone']);
  });
});

describe('the refresh button', () => {
  it("invalidates the sidebar's queries and no others", async () => {
    const qc = new QueryClient();
    qc.setQueryData(sidebarKeys.checks('c1'), []);
    qc.setQueryData(sidebarKeys.configs('c1'), []);
    qc.setQueryData(['db', 'incidents', 'list'], []);
    await refreshSidebar(qc);
    const stale = qc.getQueryCache().getAll().filter((q) => q.state.isInvalidated).map((q) => q.queryKey[1]);
    expect(stale.sort()).toEqual(['check_component_relationships', 'config_component_relationships']);
  });
});
