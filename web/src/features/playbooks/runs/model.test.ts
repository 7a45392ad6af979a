import { describe, expect, it } from 'vitest';
import {
  displayParams, durationText, logsFileName, logsFileText, mayApprove, mergeLines, rerunParams, resultOutput, runResource,
  runSteps, scheduledIn, stripAnsi, type LogLine,
} from './model';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('playbook runs model', () => {
  it('a run error without actions becomes the synthetic Initialization step', () => {
    const run = { status: 'failed', error: 'template: bad', created_at: '2026-01-01T00:00:00Z' };
    const steps = runSteps(run, []);
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ name: 'Initialization', status: 'failed', error: 'template: bad' });
    // with actions, the actions are the steps
    expect(runSteps(run, [{ id: 'a', name: 'one', status: 'failed' }]).map((s) => s.name)).toEqual(['one']);
    expect(runSteps({ ...run, error: null }, [])).toEqual([]);
  });

  it('a sleeping action reads "scheduled in 3m"', () => {
    expect(scheduledIn(new Date(NOW + 3 * 60_000 + 5_000).toISOString(), NOW)).toBe('scheduled in 3m');
    expect(scheduledIn(new Date(NOW + 20_000).toISOString(), NOW)).toBe('scheduled in 20s');
    expect(scheduledIn(new Date(NOW + 90 * 60_000).toISOString(), NOW)).toBe('scheduled in 1h 30m');
    expect(scheduledIn(new Date(NOW - 5_000).toISOString(), NOW)).toBe('scheduled now');
  });

  it('durations run from start to end, or to now while running', () => {
    expect(durationText('2026-01-01T00:00:00Z', '2026-01-01T00:00:02.5Z')).toBe('2.5s');
    expect(durationText(new Date(NOW - 65_000).toISOString(), null, NOW)).toBe('1m 5s');
    expect(durationText(null, null, NOW)).toBe('');
  });

  it('secret parameters show as *** by the spec\'s types, and are left out of a re-run', () => {
    const spec = { parameters: [{ name: 'token', type: 'secret', label: 'Token' }, { name: 'n', type: 'text' }] };
    const params = { token: 'hunter2', n: 'x', extra: { a: 1 } };
    expect(displayParams(params, spec)).toEqual([
      { name: 'token', label: 'Token', value: '***' },
      { name: 'n', label: 'n', value: 'x' },
      { name: 'extra', label: 'extra', value: '{"a":1}' },
    ]);
    expect(rerunParams(params, spec)).toEqual({ n: 'x', extra: { a: 1 } });
    expect(rerunParams({ masked: '***' }, {})).toEqual({});
  });

  it('Approve is offered to listed people (email or id, any case) and when teams are listed', () => {
    const user = { id: 'U1', email: 'Ann@Example.com' };
    expect(mayApprove({ approval: { approvers: { people: ['ann@example.com'] } } }, user)).toBe(true);
    expect(mayApprove({ approval: { approvers: { people: ['u1'] } } }, user)).toBe(true);
    expect(mayApprove({ approval: { approvers: { people: ['bob@example.com'] } } }, user)).toBe(false);
    expect(mayApprove({ approval: { approvers: { teams: ['sre'] } } }, user)).toBe(true);
    expect(mayApprove({}, user)).toBe(false);
  });

  it('stored output comes from stdout/stderr, or a logs action\'s logs', () => {
    expect(resultOutput({ stdout: 'a\n', stderr: 'b', exitCode: 0 })).toEqual({ stdout: 'a\n', stderr: 'b' });
    expect(resultOutput({ logs: 'x' })).toEqual({ stdout: 'x', stderr: '' });
    expect(resultOutput({ code: 200 })).toEqual({ stdout: '', stderr: '' });
    expect(resultOutput(null)).toEqual({ stdout: '', stderr: '' });
  });

  it('lines merge in seq order without duplicates', () => {
    const l = (seq: number): LogLine => ({ action_id: 'a', seq, stream: 'stdout', text: `line ${seq}` });
    const first = mergeLines([], [l(1), l(2)]);
    expect(mergeLines(first, [l(2)])).toBe(first);
    expect(mergeLines(first, [l(0), l(3), l(3)]).map((x) => x.seq)).toEqual([0, 1, 2, 3]);
  });

  it('the downloaded file has every step\'s output without escapes, and a safe name', () => {
    const steps = [
      { id: 'a', name: 'build', status: 'completed', result: { stdout: '\u001b[31mred\u001b[0m\n', stderr: 'warn\n' } },
      { id: 'b', name: 'call', status: 'failed', error: 'boom', result: { code: 500 } },
      { id: 'c', name: 'live', status: 'running' },
    ];
    const lines = new Map([['c', [{ action_id: 'c', seq: 0, stream: 'stdout', text: 'line 1' }]]]);
    const text = logsFileText({ id: 'r1', status: 'failed', playbookName: 'Deploy' }, steps, lines);
    expect(text).toContain('=== build (completed)\nred\n--- stderr\nwarn');
    expect(text).toContain('=== call (failed)\nError: boom\n--- result\n{\n  "code": 500\n}');
    expect(text).toContain('=== live (running)\nline 1');
    expect(text).not.toContain('\u001b');
    expect(logsFileName('My playbook / x', 'r1')).toBe('My-playbook-x-r1.log');
    expect(stripAnsi('\u001b[1;32mok\u001b[0m')).toBe('ok');
  });

  it('the resource links to its page', () => {
    expect(runResource({ check_id: 'c1', check: { id: 'c1', name: 'api' } })).toEqual({ kind: 'check', name: 'api', href: '/health?checkId=c1' });
    expect(runResource({ config_id: 'k1' })).toMatchObject({ kind: 'config', href: '/catalog/k1' });
    expect(runResource({ component: { id: 'p1', name: 'db' } })).toMatchObject({ kind: 'component', href: '/topology/p1' });
    expect(runResource({})).toBeNull();
  });
});
