import { describe, expect, it } from 'vitest';
import { historyQuery, recipientText, repeatText, resourceHref, silenceHref, statusLabel, summariseByName, titleOf } from './model';

describe('send history model', () => {
  it('labels repeat-interval as Repeated and title-cases unknown statuses', () => {
    expect(statusLabel('repeat-interval')).toBe('Repeated');
    expect(statusLabel('sent')).toBe('Sent');
    expect(statusLabel('attempting_fallback')).toBe('Attempting fallback');
  });

  it('asks /api/db for one page newest first, filters as the reference (status.filter, resource_type.filter)', () => {
    expect(historyQuery({ status: 'error,pending', resourceType: 'http' }, 2, 25)).toEqual({
      select: '*', order: 'created_at.desc', limit: '25', offset: '50',
      'status.filter': 'error,pending', 'resource_type.filter': 'http',
    });
    expect(historyQuery({ status: '', resourceType: '' }, 0, 50)).not.toHaveProperty('status.filter');
  });

  it('says "x{count} over {duration}" only for a row standing for several sends', () => {
    expect(repeatText({ count: 1, first_observed: null, created_at: '2026-11-20T10:00:00Z' })).toBeNull();
    expect(repeatText({ count: 3, first_observed: '2026-11-20T08:00:00Z', created_at: '2026-11-20T10:00:00Z' })).toBe('x3 over 2h');
  });

  it('takes the title from the row, else the body’s first line without markdown', () => {
    expect(titleOf({ title: 'Given', body: '# other' })).toBe('Given');
    expect(titleOf({ body: '\n## Check **api** has [failed](http://x)\nmore' })).toBe('Check api has failed');
  });

  it('names the recipient by email, connection or URL, and links resources and silences by kind', () => {
    expect(recipientText({ kind: 'person', email: 'ada@example.test' })).toBe('ada@example.test');
    expect(recipientText({ kind: 'custom', connection: 'connection://default/slack' })).toBe('connection://default/slack');
    expect(recipientText(null)).toBe('');
    expect(silenceHref('check', 'c1')).toBe('/notifications/silences/add?check_id=c1');
    expect(silenceHref('config', 'k1')).toBe('/notifications/silences/add?config_id=k1');
    expect(silenceHref('playbook', 'p1')).toBeNull();
    expect(resourceHref('check', 'c1')).toBe('/health?checkId=c1');
    expect(resourceHref('component', 'x')).toBe('/topology/x');
  });
});

describe('event queue summary per name', () => {
  it('sums counts, weights attempts, spans failures and keeps the most frequent error', () => {
    const rows = summariseByName([
      { name: 'check.failed', event_id: 'a', pending: 1, failed: 1, average_attempts: 3, first_failure: '2026-11-20T10:00:00Z', last_failure: '2026-11-20T10:00:00Z', most_common_error: 'boom' },
      { name: 'check.failed', event_id: 'b', pending: 3, failed: 2, average_attempts: 1, first_failure: '2026-11-20T09:00:00Z', last_failure: '2026-11-20T11:00:00Z', most_common_error: 'timeout' },
      { name: 'check.passed', event_id: 'c', pending: 2, failed: 0, average_attempts: 0, first_failure: null, last_failure: null, most_common_error: null },
    ]);
    expect(rows).toEqual([
      { name: 'check.failed', pending: 4, failed: 3, average_attempts: 1.5, first_failure: '2026-11-20T09:00:00Z', last_failure: '2026-11-20T11:00:00Z', most_common_error: 'timeout' },
      { name: 'check.passed', pending: 2, failed: 0, average_attempts: 0, first_failure: null, last_failure: null, most_common_error: null },
    ]);
  });
});
