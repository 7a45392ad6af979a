// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { INSIGHT_FILTER_DEFAULTS, insightsQuery, plainMessage } from './model';

const newest = { sortBy: '', desc: true };

describe('insightsQuery', () => {
  it('reads open insights 50 at a time, newest first, with the config embedded', () => {
    const q = insightsQuery(INSIGHT_FILTER_DEFAULTS, newest, 0);
    expect(q).toMatchObject({ status: 'eq.open', order: 'first_observed.desc', limit: 50, offset: 0 });
    expect(q.select).toContain('config:configs(id,name,config_class,type)');
    expect(q.config_id).toBeUndefined();
  });

  it('filters by type, severity (lower-cased), analyzer, config type; pages by 50; sorts only known columns', () => {
    const q = insightsQuery(
      { ...INSIGHT_FILTER_DEFAULTS, status: 'all', severity: 'High', type: 'security', analyzer: 'latest-tag', configType: 'Kubernetes::Pod' },
      { sortBy: 'config', desc: false },
      2,
    );
    expect(q).toMatchObject({
      severity: 'eq.high', analysis_type: 'eq.security', analyzer: 'eq.latest-tag', config_type: 'eq.Kubernetes::Pod',
      order: 'config_name.asc', offset: 100,
    });
    expect(q.status).toBeUndefined();
    expect(insightsQuery(INSIGHT_FILTER_DEFAULTS, { sortBy: 'drop table', desc: true }, 0).order).toBe('first_observed.desc');
  });

  it("keeps to an item's insights on its tab, and to a component's configs", () => {
    expect(insightsQuery(INSIGHT_FILTER_DEFAULTS, newest, 0, { configId: 'c1' }).config_id).toBe('eq.c1');
    expect(insightsQuery(INSIGHT_FILTER_DEFAULTS, newest, 0, { componentConfigIds: ['a', 'b'] }).config_id).toBe('in.(a,b)');
    expect(insightsQuery(INSIGHT_FILTER_DEFAULTS, newest, 0, { componentConfigIds: [] }).config_id).toBe('in.(00000000-0000-0000-0000-000000000000)');
  });
});

describe('plainMessage', () => {
  it('drops markup, keeps words, and cuts at 500 characters', () => {
    expect(plainMessage('<p>Container <b>nginx</b> uses &lt;latest&gt;</p><script>alert(1)</script>')).toBe('Container nginx uses <latest>');
    expect(plainMessage('line one\n\n  line two')).toBe('line one line two');
    const long = 'x'.repeat(600);
    expect(plainMessage(long)).toBe(`${'x'.repeat(500)}…`);
    expect(plainMessage('y'.repeat(500))).toBe('y'.repeat(500));
    expect(plainMessage(null)).toBe('');
  });
});
