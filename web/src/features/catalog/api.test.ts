import { describe, expect, it } from 'vitest';
import { ConfigSummaryRequest } from '@contracts/catalog-api';
import { groupKey, summaryRequest } from './api';
import { CATALOG_URL_DEFAULTS, formatLabelFilters } from './filters';

describe('summaryRequest', () => {
  it('sends the grouping, 30-day changes and live items only by default', () => {
    const body = summaryRequest('type', CATALOG_URL_DEFAULTS);
    expect(body).toEqual({ groupBy: ['type'], changes: { since: '30d' }, deleted: false });
    expect(ConfigSummaryRequest.parse(body)).toEqual(body);
  });

  it('maps every list filter onto the contract: labels as key -> "v1,!v2", a tag grouping by its key', () => {
    const labels = formatLabelFilters([
      { key: 'app', value: 'web', mode: 'include' },
      { key: 'app', value: 'api', mode: 'include' },
      { key: 'env', value: 'dev', mode: 'exclude' },
    ]);
    const body = summaryRequest('tag:namespace', {
      ...CATALOG_URL_DEFAULTS, labels, type: 'Kubernetes::Pod', status: 'Running', health: 'unhealthy', deleted: true, search: ' web ',
    });
    expect(body).toEqual({
      groupBy: ['namespace'],
      changes: { since: '30d' },
      deleted: true,
      filter: { app: 'web,api', env: '!dev' },
      type: 'Kubernetes::Pod',
      status: 'Running',
      health: 'unhealthy',
      search: 'web',
    });
    expect(ConfigSummaryRequest.safeParse(body).success).toBe(true);
    expect(groupKey('config_class')).toBe('config_class');
  });
});
