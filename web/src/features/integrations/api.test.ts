import { describe, expect, it } from 'vitest';
import { listQuery } from './api';
import { integrationType } from './types';

describe('listQuery', () => {
  it('pages live rows by name by default', () => {
    expect(listQuery({ pageIndex: 2, pageSize: 50, sortBy: 'name', desc: false })).toMatchObject({
      deleted_at: 'is.null',
      order: 'name.asc.nullslast',
      limit: 50,
      offset: 100,
    });
  });

  it('sorts a column by its view column, name breaking ties so pages never overlap', () => {
    expect(listQuery({ pageIndex: 0, pageSize: 25, sortBy: 'last_run', desc: true }).order).toBe('job_time_start.desc.nullslast,name.asc');
    expect(listQuery({ pageIndex: 0, pageSize: 25, sortBy: 'type', desc: false }).order).toBe('integration_type.asc.nullslast,name.asc');
  });

  it('falls back to name for a sort the URL made up', () => {
    expect(listQuery({ pageIndex: 0, pageSize: 25, sortBy: 'password', desc: false }).order).toBe('name.asc.nullslast');
  });
});

describe('integrationType', () => {
  it('knows the three kinds of integrations_with_status and nothing else', () => {
    expect(['scrapers', 'topologies', 'logging_backends'].map(integrationType)).toEqual(['scrapers', 'topologies', 'logging_backends']);
    expect(integrationType('widgets')).toBeUndefined();
    expect(integrationType('toString')).toBeUndefined();
    expect(integrationType(undefined)).toBeUndefined();
  });
});
