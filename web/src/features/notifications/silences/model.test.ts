import { describe, expect, it } from 'vitest';
import { isExpired, previewQuery, silenceBody, silenceFieldErrors, silenceFormDefaults, silenceFormSchema, silenceTarget } from './model';

describe('notification silences', () => {
  it('prefills the resource from the link', () => {
    expect(silenceFormDefaults(new URLSearchParams('check_id=c1'))).toMatchObject({ tab: 'check', check_id: 'c1', mode: 'resource' });
    expect(silenceFormDefaults(new URLSearchParams('config_id=k1'))).toMatchObject({ tab: 'config', config_id: 'k1' });
    expect(silenceFormDefaults(new URLSearchParams('canary_id=x'))).toMatchObject({ tab: 'check', canary_id: 'x' });
  });

  it('needs exactly the chosen target', () => {
    const v = { ...silenceFormDefaults(new URLSearchParams()), duration: '1h' };
    expect(silenceFormSchema.safeParse(v).error?.issues[0].path).toEqual(['check_id']);
    expect(silenceFormSchema.safeParse({ ...v, mode: 'filter', filter: 'check.type == "http"' }).success).toBe(true);
    expect(silenceFormSchema.safeParse({ ...v, mode: 'selectors', selectors: 'nope' }).success).toBe(false);
  });

  it('builds the body: a future range or indefinitely, one target', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const v = { ...silenceFormDefaults(new URLSearchParams('check_id=c1')), duration: '4h', description: 'maintenance', recursive: true };
    expect(silenceBody(v, now)).toEqual({
      from: '2026-01-01T00:00:00.000Z',
      until: '2026-01-01T04:00:00.000Z',
      description: 'maintenance',
      recursive: true,
      check_id: 'c1',
    });
    expect(silenceBody({ ...v, duration: 'indefinitely' }, now).until).toBeNull();
    expect(previewQuery(v)).toEqual({ id: 'c1', type: 'check', recursive: 'true' });
    expect(previewQuery({ ...v, mode: 'filter', filter: 'x' })).toEqual({ filter: 'x' });
  });

  it('is expired once until is past; names its target', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    expect(isExpired({ until: '2026-01-01T00:00:00Z' }, now)).toBe(true);
    expect(isExpired({ until: null }, now)).toBe(false);
    expect(silenceTarget({ id: 's', check_id: 'c', checks: { id: 'c', name: 'api' } })).toEqual({ kind: 'Check', name: 'api' });
  });

  it('puts a server 400 on its field', () => {
    expect(silenceFieldErrors('invalid silence: until: before from', { until: 'before from' })).toEqual([{ field: 'duration', message: 'before from' }]);
    expect(silenceFieldErrors('invalid silence: filter: undeclared reference')).toEqual([{ field: 'filter', message: 'undeclared reference' }]);
  });
});
