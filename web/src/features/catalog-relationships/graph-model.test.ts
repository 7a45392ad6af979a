import { describe, expect, it } from 'vitest';
import { deploymentTree, expandAll, item } from './graph-fixtures';
import { buildGraph, typeNodeId, type GraphConfig } from './graph-model';

describe('buildGraph', () => {
  // a namespace with 5 pods, 2 services and 3 config maps; a deleted pod; a pod that links back (a cycle)
  const pods = ['p1', 'p2', 'p3', 'p4', 'p5'];
  const rows = [
    item('ns', 'Kubernetes::Namespace', [...pods, 's1', 's2', 'c1', 'c2', 'c3', 'gone', 'ns']),
    ...pods.map((p) => item(p, 'Kubernetes::Pod', p === 'p1' ? ['ns'] : [])),
    item('s1', 'Kubernetes::Service'),
    item('s2', 'Kubernetes::Service'),
    item('c1', 'Kubernetes::ConfigMap'),
    item('c2', 'Kubernetes::ConfigMap'),
    item('c3', 'Kubernetes::ConfigMap'),
    item('gone', 'Kubernetes::Pod', [], true),
  ];

  it('puts a type node over 3 or more related of one type, collapses groups above 3, keeps deleted items out', () => {
    const g = buildGraph(rows, 'ns');
    const podGroup = typeNodeId('ns', 'Kubernetes::Pod');
    const cmGroup = typeNodeId('ns', 'Kubernetes::ConfigMap');
    const ids = g.nodes.map((n) => n.id).sort();
    // 5 pods: a collapsed type node; 3 config maps: an open one; 2 services: no type node
    expect(ids).toEqual(['c1', 'c2', 'c3', cmGroup, podGroup, 'ns', 's1', 's2'].sort());
    expect(g.nodes.find((n) => n.id === podGroup)).toMatchObject({ kind: 'type', childCount: 5, collapsed: true });
    expect(g.nodes.find((n) => n.id === cmGroup)).toMatchObject({ kind: 'type', childCount: 3, collapsed: false });
    expect(g.edges.map((e) => e.id)).toContain(`ns->${podGroup}`);
    expect(g.edges.map((e) => e.id)).toContain(`${cmGroup}->c1`);
    expect(g.edges.some((e) => e.source === 'ns' && e.target === 's1')).toBe(true);
    expect(g.edges.some((e) => e.target === 'ns')).toBe(false);
    expect(g.deleted).toBe(1);
    expect(g.hidden).toBe(5);
  });

  it('opens a collapsed group on click and closes an open one', () => {
    const podGroup = typeNodeId('ns', 'Kubernetes::Pod');
    const cmGroup = typeNodeId('ns', 'Kubernetes::ConfigMap');
    const g = buildGraph(rows, 'ns', new Set([podGroup, cmGroup]));
    const ids = new Set(g.nodes.map((n) => n.id));
    for (const p of pods) expect(ids.has(p)).toBe(true);
    for (const c of ['c1', 'c2', 'c3']) expect(ids.has(c)).toBe(false);
    // the pod that links back to the namespace draws that edge once the group is open
    expect(g.edges.some((e) => e.source === 'p1' && e.target === 'ns')).toBe(true);
  });

  it('lays out 1,000 items in one pass', () => {
    const many: GraphConfig[] = [item('root', 'Kubernetes::Cluster', Array.from({ length: 50 }, (_, i) => `d${i}`))];
    for (let i = 0; i < 50; i++) {
      many.push(item(`d${i}`, 'Kubernetes::Deployment', Array.from({ length: 18 }, (_, j) => `d${i}p${j}`)));
      for (let j = 0; j < 18; j++) many.push(item(`d${i}p${j}`, j % 2 ? 'Kubernetes::Pod' : 'Kubernetes::ReplicaSet'));
    }
    expect(many.length).toBe(951);
    const all = buildGraph(many, 'root', new Set([typeNodeId('root', 'Kubernetes::Deployment')]));
    // the deployments show, each with two collapsed groups of 9
    expect(all.nodes.filter((n) => n.kind === 'config').length).toBe(51);
    expect(all.nodes.filter((n) => n.kind === 'type' && n.collapsed).length).toBe(100);
  });

  it('keeps deleted items out of a 1,000-item graph, fully expanded, and their links with them', () => {
    const rows = deploymentTree({ crossLinks: true, deletedEvery: 4 });
    const deleted = new Set(rows.filter((r) => r.deleted_at).map((r) => r.id));
    expect(deleted.size).toBe(25 * 10);
    const { model } = expandAll(rows, 'ns');
    expect(model.deleted).toBe(deleted.size);
    expect(model.hidden).toBe(0);
    expect(model.nodes.filter((n) => n.kind === 'config')).toHaveLength(rows.length - deleted.size);
    expect(model.nodes.some((n) => deleted.has(n.id))).toBe(false);
    expect(model.edges.some((e) => deleted.has(e.source) || deleted.has(e.target))).toBe(false);
    // the replica sets' pod groups count the live pods only
    const pods = model.nodes.find((n) => n.id === typeNodeId('dep-0-rs', 'Kubernetes::Pod'));
    expect(pods).toMatchObject({ kind: 'type', childCount: 28, collapsed: false });
  });

  it('expands and collapses one group of a 1,000-item graph without touching the others', () => {
    const rows = deploymentTree();
    const { model: all, toggled } = expandAll(rows, 'ns');
    expect(all.nodes.length).toBe(1 + 1 + 25 * 3 + 25 * 38);
    const group = typeNodeId('dep-7-rs', 'Kubernetes::Pod');
    const fewer = new Set(toggled);
    fewer.delete(group);
    const one = buildGraph(rows, 'ns', fewer);
    expect(one.nodes.length).toBe(all.nodes.length - 38);
    expect(one.hidden).toBe(38);
    expect(one.nodes.find((n) => n.id === group)).toMatchObject({ collapsed: true, childCount: 38 });
    expect(one.nodes.some((n) => n.id === 'dep-8-pod-0')).toBe(true);
    expect(one.nodes.some((n) => n.id === 'dep-7-pod-0')).toBe(false);
  });
});
