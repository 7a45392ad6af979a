import { describe, expect, it } from 'vitest';
import { activeMention, commentText, insertMention, parseComment } from './mentions';
import { allowedTargets, asksForDefinitionOfDone, childType, humanize, teamResponderDefaults, teamResponderTypes } from './model';

describe('status transitions', () => {
  it('follows the spec table, each status including itself', () => {
    expect(allowedTargets('new')).toEqual(['new', 'open', 'investigating', 'mitigated', 'resolved', 'closed']);
    expect(allowedTargets('open')).toEqual(['open', 'investigating', 'mitigated', 'resolved', 'closed']);
    expect(allowedTargets('investigating')).not.toContain('open');
    expect(allowedTargets('mitigated')).toEqual(['mitigated', 'resolved', 'closed', 'open']);
    expect(allowedTargets('resolved')).toEqual(['resolved', 'closed', 'open']);
    expect(allowedTargets('closed')).toEqual(['closed', 'open']);
  });
  it('asks for the definition of done on mitigated and resolved only', () => {
    expect(['open', 'investigating', 'mitigated', 'resolved', 'closed'].filter(asksForDefinitionOfDone)).toEqual(['mitigated', 'resolved']);
  });
});

describe('hypothesis tree', () => {
  it('goes root → factor → solution', () => {
    expect(childType('root')).toBe('factor');
    expect(childType('factor')).toBe('solution');
    expect(childType('solution')).toBeNull();
  });
});

describe('responder types of a team', () => {
  const spec = { responder_clients: { email: { defaults: { to: 'ops@example.com' } }, jira: { values: { project: 'OPS' } }, unknown: {} } };
  it('offers only the configured, known types', () => {
    expect(teamResponderTypes(spec)).toEqual(['email', 'jira']);
    expect(teamResponderTypes({})).toEqual([]);
    expect(teamResponderTypes(null)).toEqual([]);
  });
  it('reads the configured defaults', () => {
    expect(teamResponderDefaults(spec, 'email')).toEqual({ to: 'ops@example.com' });
    expect(teamResponderDefaults(spec, 'jira')).toEqual({ project: 'OPS' });
    expect(teamResponderDefaults(spec, 'ca')).toEqual({});
  });
});

describe('mentions', () => {
  it('parses text and mentions in order', () => {
    expect(parseComment('ping @[Ana Lee](user:42) and @[Bo](user:7)!')).toEqual([
      { kind: 'text', text: 'ping ' },
      { kind: 'mention', name: 'Ana Lee', id: '42' },
      { kind: 'text', text: ' and ' },
      { kind: 'mention', name: 'Bo', id: '7' },
      { kind: 'text', text: '!' },
    ]);
    expect(commentText('hi @[Ana](user:1)')).toBe('hi @Ana');
    expect(parseComment('no markup @here')).toEqual([{ kind: 'text', text: 'no markup @here' }]);
  });
  it('finds the mention being typed and replaces it with markup', () => {
    expect(activeMention('hello @an', 9)).toEqual({ start: 6, query: 'an' });
    expect(activeMention('mail a@b', 8)).toBeNull();
    expect(activeMention('@', 1)).toEqual({ start: 0, query: '' });
    const out = insertMention('hello @an', 6, 9, { id: 'p1', name: 'Ana [x] Lee' });
    expect(out.text).toBe('hello @[Ana x Lee](user:p1) ');
    expect(out.caret).toBe(out.text.length);
  });
});

describe('humanize', () => {
  it('spells values as words', () => {
    expect(humanize('technicalDebt')).toBe('Technical Debt');
    expect(humanize('config_change')).toBe('Config Change');
  });
});

describe('responder forms', () => {
  it('ask for exactly the fields the server requires', async () => {
    const { RESPONDER_FIELDS: required } = await import('@contracts/incidents');
    const { RESPONDER_FIELDS: forms } = await import('./model');
    for (const [type, fields] of Object.entries(forms)) {
      expect(fields.map((f) => f.name).sort(), type).toEqual([...required[type as keyof typeof required]].sort());
    }
  });
});
