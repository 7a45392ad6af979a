import { describe, expect, it } from 'vitest';
import { errorsOf, scrapeSummaryOf } from './job-summary';

describe('scrapeSummaryOf', () => {
  it('lists each config type of a run by name with its totals', () => {
    const details = {
      scrape_summary: {
        config_types: {
          'Kubernetes::Pod': { added: 3, updated: 1, unchanged: 10, changes: 2 },
          File: { added: 1, updated: 0, unchanged: 0, changes: 0, deleted: 4 },
        },
      },
    };
    expect(scrapeSummaryOf(details)).toEqual({
      types: [
        { type: 'File', added: 1, updated: 0, unchanged: 0, changes: 0, deleted: 4 },
        { type: 'Kubernetes::Pod', added: 3, updated: 1, unchanged: 10, changes: 2, deleted: 0 },
      ],
      total: { added: 4, updated: 1, unchanged: 10, changes: 2, deleted: 4 },
    });
  });

  it('is empty for a run without a summary (a failed run, another job)', () => {
    expect(scrapeSummaryOf(null).types).toEqual([]);
    expect(scrapeSummaryOf({ errors: ['x'] }).total).toEqual({ added: 0, updated: 0, unchanged: 0, changes: 0, deleted: 0 });
    expect(scrapeSummaryOf({ scrape_summary: { config_types: { A: 'x' } } }).types).toEqual([]);
  });
});

describe('errorsOf', () => {
  it('reads strings, objects with a message, and a single error', () => {
    expect(errorsOf({ errors: ['file a.yaml: bad YAML', { message: 'spec.http[0]: timeout' }, { code: 1 }] })).toEqual([
      'file a.yaml: bad YAML',
      'spec.http[0]: timeout',
      '{"code":1}',
    ]);
    expect(errorsOf({ errors: 'one' })).toEqual(['one']);
    expect(errorsOf({})).toEqual([]);
  });
});
