import { describe, expect, it } from 'vitest';
import { listQuery, type Incident } from './api';
import { describeEvent } from './components/changelog';
import { toMarkup } from './components/comment-box';
import { linkErrors } from './components/link-to-incident-dialog';
import { INVALID, responderErrors } from './components/responder-wizard';
import { topologyComponents } from './components/topology-strip';

const page = { pageIndex: 2, pageSize: 25, sortBy: 'age', desc: true };
const none = { severity: 'all', status: 'all', owner: 'all', type: 'all', component: 'all', search: '' };

describe('the list query', () => {
  it('leaves "all" out and pages, newest first', () => {
    const q = listQuery(none, page);
    expect(Object.keys(q).sort()).toEqual(['limit', 'offset', 'order', 'responders.deleted_at', 'select']);
    expect(q).toMatchObject({ order: 'created_at.desc', limit: 25, offset: 50 });
  });
  it('filters with eq, the owner as created_by, the component through the evidences, the title by ilike', () => {
    const q = listQuery({ severity: 'high', status: 'open', owner: 'p1', type: 'security', component: 'c1', search: 'db, (primary)*' }, { ...page, sortBy: 'incident_id', desc: false });
    expect(q).toMatchObject({
      severity: 'eq.high',
      status: 'eq.open',
      created_by: 'eq.p1',
      type: 'eq.security',
      'hypotheses.evidences.component_id': 'eq.c1',
      order: 'incident_id.asc',
    });
    expect(q.select).toContain('hypotheses!inner(id,evidences!inner(component_id))');
    // PostgREST's own characters never reach the filter
    expect(q.title).toBe('ilike.*db_ _primary__*');
  });
});

describe('Link to Incident validation', () => {
  const existing = { kind: 'existing' as const, id: 'i1', label: 'INC-1' };
  it('uses the spec texts', () => {
    expect(linkErrors(null, null, 'low', 'availability')).toEqual({ incident: 'Must select or create an incident' });
    expect(linkErrors(existing, null, '', '')).toEqual({ hypothesis: 'Must select or create a hypothesis' });
    expect(linkErrors({ kind: 'new', title: 'x' }, null, '', '')).toEqual({
      severity: 'Please select incident severity',
      type: 'Please select an incident type',
    });
    expect(linkErrors({ kind: 'new', title: 'x' }, null, 'low', 'cost')).toEqual({});
  });
});

describe('responder details', () => {
  it('requires every field of the type, and email addresses in To', () => {
    expect(responderErrors('email', { to: 'a@b.c', subject: 's', body: 'b' })).toEqual({});
    expect(responderErrors('email', { to: 'not an address', subject: ' ', body: 'b' })).toEqual({ to: INVALID, subject: INVALID });
    expect(Object.keys(responderErrors('jira', {}))).toEqual(['project', 'issueType', 'summary', 'description', 'priority']);
  });
});

describe('the changelog', () => {
  const base = { id: '1', created_at: '2026-01-01T00:00:00Z', created_by: { id: 'p', name: 'Ana' } };
  it('reads each event as a sentence', () => {
    expect(describeEvent({ ...base, type: 'incident.created' })).toBe('Ana created the incident');
    expect(describeEvent({ ...base, type: 'incident.status_updated', description: 'Status changed from open to mitigated' })).toBe('Ana changed the status from open to mitigated');
    expect(describeEvent({ ...base, type: 'hypothesis.status_updated', description: 'Hypothesis DNS changed from possible to likely', hypothesis: { id: 'h', title: 'DNS' } })).toBe(
      'Ana changed the status of “DNS” from possible to likely',
    );
    expect(describeEvent({ ...base, type: 'responder.created', responder: { id: 'r', team: { id: 't', name: 'SRE' } } })).toBe('Ana added SRE as a responder');
    expect(describeEvent({ ...base, type: 'responder.commented', comment: { id: 'c', comment: 'hi @[Bo](user:2)' } })).toBe('Ana commented “hi @Bo”');
    expect(describeEvent({ ...base, type: 'evidence.done_definition_added', evidence: { id: 'e', type: 'log', description: 'OOM' } })).toBe('Ana added “OOM” to the definition of done');
  });
});

describe('mentions typed as names', () => {
  it('become markup, longer names first', () => {
    expect(toMarkup('@Ana Lee and @Ana', [{ id: '1', name: 'Ana' }, { id: '2', name: 'Ana Lee' }])).toBe('@[Ana Lee](user:2) and @[Ana](user:1)');
  });
});

describe('the topology strip', () => {
  it('lists each component of the topology evidence once', () => {
    const ev = (type: string, component_id: string | null, name: string) => ({ id: name, hypothesis_id: 'h', type, created_at: '', component_id, evidence: { name } });
    const incident = { hypotheses: [{ evidences: [ev('topology', 'c1', 'api'), ev('topology', 'c1', 'api'), ev('log', null, 'x'), ev('topology', 'c2', 'db')] }] } as unknown as Incident;
    expect(topologyComponents(incident)).toEqual([{ id: 'c1', name: 'api', linked: true }, { id: 'c2', name: 'db', linked: true }]);
  });

  it('links a component to its topology page only when the evidence names it by id', () => {
    const incident = { hypotheses: [{ evidences: [{ id: 'e', hypothesis_id: 'h', type: 'topology', created_at: '', component_id: null, evidence: { name: 'gone' } }] }] } as unknown as Incident;
    expect(topologyComponents(incident)).toEqual([{ id: 'gone', name: 'gone', linked: false }]);
  });
});
