import { describe, expect, it } from 'vitest';
import { groupByCategory, isEditable, parseSpec, pathSegments, placeProblems } from './model';
import { writeBody } from './api';

describe('the playbooks model', () => {
  it("groups cards by category, 'Other' for none and last, titles sorted", () => {
    const groups = groupByCategory([
      { id: '1', name: 'b', title: 'Bravo', category: 'Ops' },
      { id: '2', name: 'a', title: null, category: null },
      { id: '3', name: 'c', title: 'alpha', category: 'Ops' },
      { id: '4', name: 'd', title: 'Delta', category: 'Db' },
    ]);
    expect(groups.map((g) => [g.category, g.items.map((p) => p.id)])).toEqual([['Db', ['4']], ['Ops', ['3', '1']], ['Other', ['2']]]);
  });

  it('edits console playbooks only', () => {
    expect(isEditable({ id: '1', name: 'x', source: 'UI' })).toBe(true);
    expect(isEditable({ id: '1', name: 'x', source: 'KubernetesCRD' })).toBe(false);
  });

  it('places the server’s problems at their lines, or the nearest parent present', () => {
    const text = 'description: x\nactions:\n  - name: one\n    exec:\n      script: echo\n  - name: two\n    gitops: {}\n';
    expect(pathSegments('spec.actions[1].gitops')).toEqual(['actions', 1, 'gitops']);
    expect(placeProblems(text, {
      'spec.actions[1].gitops': 'gitops actions are not supported',
      'spec.actions[0].exec.timeout': 'bad',
      title: 'title is required',
    })).toEqual([
      { path: 'spec.actions[1].gitops', message: 'gitops actions are not supported', line: 7, column: 13 },
      { path: 'spec.actions[0].exec.timeout', message: 'bad', line: 5, column: 7 },
      { path: 'title', message: 'title is required', line: 1, column: 1 },
    ]);
  });

  it('reads the spec YAML and writes the reference UI’s body', () => {
    expect(parseSpec('a: [')).toHaveProperty('error');
    expect(parseSpec('- 1')).toEqual({ error: 'The spec must be a YAML mapping' });
    const parsed = parseSpec('category: Ops\nicon: k8s\nactions: []');
    expect(parsed).toEqual({ spec: { category: 'Ops', icon: 'k8s', actions: [] } });
    expect(writeBody({ title: 'Restart', spec: { category: 'Ops', icon: 'k8s', actions: [] } })).toEqual({
      name: 'Restart', title: 'Restart', spec: { category: 'Ops', icon: 'k8s', actions: [] }, source: 'UI', category: 'Ops', description: '', icon: 'k8s',
    });
  });
});
