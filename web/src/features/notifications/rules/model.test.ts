import { describe, expect, it } from 'vitest';
import { formFieldOf, ruleFormSchema, ruleFormValues, ruleStatus, ruleWriteBody, serverErrorField, serverFieldErrors, type RuleForm, type RuleRow } from './model';

const base = (over: Partial<RuleForm> = {}): RuleForm => ({ ...ruleFormValues(), name: 'r', events: ['check.failed'], person_id: 'p1', ...over });

describe('notification rule form', () => {
  it('requires events and a recipient of the chosen kind', () => {
    const r = ruleFormSchema.safeParse({ ...ruleFormValues(), name: 'x' });
    expect(r.success).toBe(false);
    const paths = r.error?.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['events', 'person_id']));
  });

  it('refuses a wait for under a minute with the spec text', () => {
    const r = ruleFormSchema.safeParse(base({ wait_for: '30s' }));
    expect(r.error?.issues.find((i) => i.path[0] === 'wait_for')?.message).toBe('Duration must be greater than 1 minute');
    expect(ruleFormSchema.safeParse(base({ wait_for: '3m' })).success).toBe(true);
  });

  it('writes one recipient kind, the others null; wait for in nanoseconds; default template null', () => {
    const body = ruleWriteBody(base({ wait_for: '5m', recipient: 'team', team_id: 't1', person_id: 'p1' }));
    expect(body).toMatchObject({ person_id: null, team_id: 't1', custom_services: null, wait_for: 300e9, template: null, filter: null });
    const others = ruleWriteBody(
      base({
        recipient: 'others',
        services: [
          { target: 'connection', connection: 'connection://default/slack', url: '', properties: 'channel=ops' },
          { target: 'url', connection: '', url: 'https://hooks.example/x', properties: '' },
        ],
        templateMode: 'custom',
        template: '{{ .check.name }}',
      }),
    );
    expect(others.person_id).toBeNull();
    expect(others.custom_services).toEqual([
      { connection: 'connection://default/slack', properties: { channel: 'ops' } },
      { url: 'https://hooks.example/x' },
    ]);
    expect(others.template).toBe('{{ .check.name }}');
  });

  it('reads a stored rule back into the form', () => {
    const v = ruleFormValues({ id: '1', name: 'n', events: ['check.passed'], custom_services: [{ url: 'https://x' }], wait_for: 180e9, template: 't', sent: null, failed: null, pending: null, avg_duration_ms: null });
    expect(v).toMatchObject({ recipient: 'others', wait_for: '3m', templateMode: 'custom', services: [{ target: 'url', url: 'https://x' }] });
  });

  it('puts a server 400 on the field its path names', () => {
    expect(serverErrorField('events[1]: unknown event "check.faild"')).toBe('events');
    expect(serverErrorField('filter: undeclared reference to x')).toBe('filter');
    expect(serverErrorField('custom_services[0].url: unknown scheme')).toBe('services.0.url');
    expect(serverErrorField('oops', { path: 'wait_for' })).toBe('wait_for');
    expect(serverErrorField('something else')).toBeNull();
    // the server's shape: the first path in the message, every path in details
    expect(serverFieldErrors('invalid notification: events[1]: unknown event "check.faild"', {
      'events[1]': 'unknown event "check.faild"',
      'custom_services[0]': 'a connection or a url is required',
    })).toEqual([
      { field: 'events', message: 'unknown event "check.faild"' },
      { field: 'services.0.url', message: 'a connection or a url is required' },
    ]);
    expect(serverFieldErrors('invalid notification: wait_for: Duration must be greater than 1 minute')).toEqual([
      { field: 'wait_for', message: 'Duration must be greater than 1 minute' },
    ]);
  });

  it('is Paused while an error is under an hour old', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(ruleStatus({ error: 'bad', error_at: '2026-01-01T11:30:00Z' }, now)).toBe('Paused');
    expect(ruleStatus({ error: 'bad', error_at: '2026-01-01T10:30:00Z' }, now)).toBe('Active');
    expect(ruleStatus({ error: null, error_at: null }, now)).toBe('Active');
  });
});

describe('quiet hours in the rule form', () => {
  const base = { id: 'r1', name: 'n', events: ['check.failed'], person_id: 'p1' };

  it('round-trips quiet hours from the row to the write body', () => {
    const q = { timezone: 'Europe/Berlin', days: ['sat', 'sun'], start: '22:00', end: '07:00', except: 'check.type == "http"' };
    const v = ruleFormValues({ ...base, quiet_hours: q } as RuleRow);
    expect(v.quiet).toBe(true);
    expect(ruleWriteBody(v).quiet_hours).toEqual(q);
    expect(ruleWriteBody({ ...v, quiet: false }).quiet_hours).toBeNull();
  });

  it('validates the times and the timezone only when quiet hours are on', () => {
    const v = ruleFormValues(base as RuleRow);
    expect(ruleFormSchema.safeParse({ ...v, quiet_start: 'late' }).success).toBe(true);
    const bad = ruleFormSchema.safeParse({ ...v, quiet: true, quiet_start: '24:00', quiet_timezone: 'Nowhere/Land' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path.join('.'))).toEqual(expect.arrayContaining(['quiet_start', 'quiet_timezone']));
  });

  it('maps the server\'s quiet_hours paths to their fields', () => {
    expect(formFieldOf('quiet_hours.except')).toBe('quiet_except');
    expect(formFieldOf('quiet_hours')).toBe('quiet_start');
  });
});
