import { describe, expect, it } from 'vitest';
import {
  CATALOG_URL_DEFAULTS, cycleLabel, filterQuery, formatLabelFilters, groupQuery, mergeQueries, parseGroupBy, parseLabelFilters,
} from './filters';

describe('label filters', () => {
  it('round-trips include and exclude entries through the URL value, keys and values with separators included', () => {
    const filters = [
      { key: 'app.kubernetes.io/name', value: 'a,b:c', mode: 'include' as const },
      { key: 'env', value: 'dev', mode: 'exclude' as const },
    ];
    const raw = formatLabelFilters(filters);
    expect(raw.split(',')).toHaveLength(2);
    expect(parseLabelFilters(raw)).toEqual(filters);
  });

  it('drops malformed entries', () => {
    expect(parseLabelFilters('nonsense,%E0%A4%A:1,=x:1,a%3Db:2')).toEqual([]);
  });

  it('cycles off → include → exclude → off', () => {
    const one = cycleLabel([], 'env', 'prod');
    expect(one).toEqual([{ key: 'env', value: 'prod', mode: 'include' }]);
    const two = cycleLabel(one, 'env', 'prod');
    expect(two).toEqual([{ key: 'env', value: 'prod', mode: 'exclude' }]);
    expect(cycleLabel(two, 'env', 'prod')).toEqual([]);
  });
});

describe('filterQuery', () => {
  it('hides deleted items by default and sends each filter as PostgREST parameters', () => {
    expect(filterQuery(CATALOG_URL_DEFAULTS)).toEqual({ deleted_at: 'is.null' });
    const labels = formatLabelFilters([
      { key: 'app', value: 'web', mode: 'include' },
      { key: 'tier', value: 'db', mode: 'include' },
      { key: 'env', value: 'dev', mode: 'exclude' },
    ]);
    const q = filterQuery({ ...CATALOG_URL_DEFAULTS, type: 'Kubernetes::Pod', status: 'Running', health: 'healthy', deleted: true, labels, search: 'a,b' });
    expect(q).toEqual({
      type: 'eq.Kubernetes::Pod',
      status: 'eq.Running',
      health: 'eq.healthy',
      labels: ['cs.{"app":"web","tier":"db"}', 'not.cs.{"env":"dev"}'],
      or: '(name.ilike."*a,b*",type.ilike."*a,b*",description.ilike."*a,b*",namespace.ilike."*a,b*")',
    });
  });

  it('ORs the included values of one key, as the summary does', () => {
    const labels = formatLabelFilters([
      { key: 'app', value: 'a', mode: 'include' },
      { key: 'app', value: 'b', mode: 'include' },
    ]);
    expect(filterQuery({ ...CATALOG_URL_DEFAULTS, labels })).toEqual({
      deleted_at: 'is.null',
      or: '(labels.cs."{\\"app\\":\\"a\\"}",labels.cs."{\\"app\\":\\"b\\"}")',
    });
  });
});

describe('groups', () => {
  it('selects a group by type, class or tag, and the items without one', () => {
    expect(groupQuery('type', 'Kubernetes::Pod')).toEqual({ type: 'eq.Kubernetes::Pod' });
    expect(groupQuery('config_class', null)).toEqual({ config_class: 'is.null' });
    expect(groupQuery('tag:cluster', 'prod')).toEqual({ tags: 'cs.{"cluster":"prod"}' });
    expect(groupQuery('tag:cluster', null)).toEqual({ 'tags->>cluster': 'is.null' });
  });

  it('sends a key set by both the filters and the group twice', () => {
    expect(mergeQueries({ type: 'eq.A', deleted_at: 'is.null' }, { type: 'eq.B' })).toEqual({ type: ['eq.A', 'eq.B'], deleted_at: 'is.null' });
  });

  it('falls back to type for an unknown grouping', () => {
    expect(parseGroupBy('config_class')).toBe('config_class');
    expect(parseGroupBy('tag:namespace')).toBe('tag:namespace');
    expect(parseGroupBy('tag:')).toBe('type');
    expect(parseGroupBy('name')).toBe('type');
  });
});
