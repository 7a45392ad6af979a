import { describe, expect, it } from 'vitest';
import { DEFAULT_TIME_RANGE } from '../../lib/time-range';
import {
  breadcrumbConfigType,
  CHANGE_FILTER_DEFAULTS,
  changesSearchRequest,
  formatTriState,
  parseTriState,
  shownFilters,
  tagSelector,
} from './model';

const now = new Date('2026-11-26T12:00:00Z');
const page = { pageIndex: 0, pageSize: 200, sortBy: 'created_at', desc: true };

describe('changesSearchRequest', () => {
  it('asks for the last 2 days, 200 newest first, without deleted configs by default', () => {
    expect(changesSearchRequest(CHANGE_FILTER_DEFAULTS, DEFAULT_TIME_RANGE, page, { includeDeleted: false }, now)).toEqual({
      from: '2026-11-24T12:00:00.000Z',
      to: '2026-11-26T12:00:00.000Z',
      page: 1,
      page_size: 200,
      sort_by: '-created_at',
      include_deleted_configs: false,
      recursive: 'none',
    });
  });

  it('turns tri-state lists into the API lists and the arbitrary filter into its fields', () => {
    const req = changesSearchRequest(
      {
        ...CHANGE_FILTER_DEFAULTS,
        changeType: 'diff:1,Pulled:-1',
        configTypes: 'Kubernetes::Pod:1',
        severity: 'high',
        tags: 'namespace____default:1,cluster____a:-1,cluster____b:-1',
        summary: ' replicas ',
        external_created_by: 'alice',
        id: 'abc',
      },
      DEFAULT_TIME_RANGE,
      { pageIndex: 2, pageSize: 50, sortBy: 'severity', desc: false },
      { includeDeleted: true },
      now,
    );
    expect(req).toMatchObject({
      type: 'diff,!Pulled',
      config_type: 'Kubernetes::Pod',
      severity: 'high',
      tags: 'namespace=default,cluster notin (a,b)',
      summary: 'replicas',
      created_by: 'alice',
      id: 'abc',
      page: 3,
      page_size: 50,
      sort_by: 'severity',
      include_deleted_configs: true,
    });
  });

  it("on an item's tab searches that item and its upstream or downstream by type_filter", () => {
    const own = changesSearchRequest({ ...CHANGE_FILTER_DEFAULTS, id: 'ignored' }, DEFAULT_TIME_RANGE, page, { configId: 'c1', includeDeleted: false }, now);
    expect(own).toMatchObject({ id: 'c1', recursive: 'none' });
    expect(own.depth).toBeUndefined();
    const down = changesSearchRequest({ ...CHANGE_FILTER_DEFAULTS, type_filter: 'downstream' }, DEFAULT_TIME_RANGE, page, { configId: 'c1', includeDeleted: false }, now);
    expect(down).toMatchObject({ id: 'c1', recursive: 'downstream', depth: 5 });
    const junk = changesSearchRequest({ ...CHANGE_FILTER_DEFAULTS, type_filter: 'sideways' }, DEFAULT_TIME_RANGE, page, { configId: 'c1', includeDeleted: false }, now);
    expect(junk.recursive).toBe('none');
  });
});

describe('tri-state lists', () => {
  it('round-trips values with commas and colons', () => {
    const entries = [{ value: 'Kubernetes::Pod', exclude: false }, { value: 'a,b', exclude: true }];
    expect(parseTriState(formatTriState(entries))).toEqual(entries);
    expect(parseTriState('x:0,y')).toEqual([{ value: 'y', exclude: false }]);
  });

  it('builds tag selectors per key', () => {
    expect(tagSelector(parseTriState('env____prod:1'))).toBe('env=prod');
    expect(tagSelector(parseTriState('env____prod:-1'))).toBe('env!=prod');
    expect(tagSelector(parseTriState('env____a:1,env____b:1'))).toBe('env in (a,b)');
    expect(tagSelector([])).toBeUndefined();
  });

  it('shows the type crumb only for exactly one kept type', () => {
    expect(breadcrumbConfigType({ configTypes: 'Kubernetes::Pod:1', configType: '' })).toBe('Kubernetes::Pod');
    expect(breadcrumbConfigType({ configTypes: 'Kubernetes::Pod:1,AWS::EC2:1', configType: '' })).toBeNull();
    expect(breadcrumbConfigType({ configTypes: 'Kubernetes::Pod:-1', configType: '' })).toBeNull();
    expect(breadcrumbConfigType({ configTypes: '', configType: 'AWS::EC2' })).toBe('AWS::EC2');
  });
});

describe('shownFilters', () => {
  it("shows the catalog link's single configType as the one kept type of the Config Type list", () => {
    const linked = { ...CHANGE_FILTER_DEFAULTS, configType: 'Kubernetes::Pod' };
    expect(parseTriState(shownFilters(linked).configTypes)).toEqual([{ value: 'Kubernetes::Pod', exclude: false }]);
    // a chosen list wins, and no type stays no type
    const chosen = { ...linked, configTypes: 'Kubernetes::Node:-1' };
    expect(shownFilters(chosen)).toBe(chosen);
    expect(shownFilters(CHANGE_FILTER_DEFAULTS).configTypes).toBe('');
  });
});
