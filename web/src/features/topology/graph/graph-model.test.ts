import { describe, expect, it } from 'vitest';
import { comp, serviceTree } from './graph-fixtures';
import { buildTopologyGraph, GROUP_MAX, groupId, worstStatus } from './graph-model';
import { layoutTopology } from './layout';
import { NODE_SIZE } from './layout';

describe('buildTopologyGraph', () => {
  it('draws parent edges from the tree and a relationship edge where a selected component is nested under its selector', () => {
    // db is api's child by parent_id; cache is nested under api only because api selects it (its parent is infra)
    const cache = comp('cache', { parent: 'infra' });
    const tree = [
      comp('app', { children: [comp('api', { parent: 'app', children: [comp('db', { parent: 'api' }), cache] })] }),
      comp('infra', { children: [cache] }),
    ];
    const g = buildTopologyGraph(tree, new Set());
    expect(g.nodes.map((n) => n.id).sort()).toEqual(['api', 'app', 'cache', 'db', 'infra']);
    expect(g.edges.map((e) => [e.id, e.kind])).toEqual(
      expect.arrayContaining([
        ['app->api', 'parent'],
        ['api->db', 'parent'],
        ['api->cache', 'relationship'],
        ['infra->cache', 'parent'],
      ]),
    );
    // reached twice, drawn once
    expect(g.nodes.filter((n) => n.id === 'cache')).toHaveLength(1);
    expect(g.edges).toHaveLength(4);
  });

  it(`folds a parent with more than ${GROUP_MAX} children into one +N node coloured by the worst child, and opens it when expanded`, () => {
    const [root] = serviceTree(1, GROUP_MAX + 1);
    const svc = root.components![0];
    const folded = buildTopologyGraph([root], new Set());
    expect(folded.nodes.map((n) => n.id)).toEqual(['root', 'svc-0', groupId('svc-0')]);
    expect(folded.nodes[2]).toMatchObject({ kind: 'group', count: GROUP_MAX + 1, status: 'unhealthy', parentId: 'svc-0' });
    expect(folded.edges.map((e) => e.id)).toEqual(['root->svc-0', `svc-0->${groupId('svc-0')}`]);
    expect(folded.folded).toBe(GROUP_MAX + 1);

    const open = buildTopologyGraph([root], new Set(['svc-0']));
    expect(open.nodes).toHaveLength(2 + svc.components!.length);
    expect(open.nodes.some((n) => n.kind === 'group')).toBe(false);
    expect(open.folded).toBe(0);

    // exactly GROUP_MAX children stay open
    const [small] = serviceTree(1, GROUP_MAX);
    expect(buildTopologyGraph([small], new Set()).nodes).toHaveLength(2 + GROUP_MAX);
  });

  it('ends on a loop of relationships instead of walking it forever', () => {
    const a = comp('a');
    const b = comp('b', { children: [a] });
    a.components = [b];
    const g = buildTopologyGraph([a], new Set());
    expect(g.nodes.map((n) => n.id)).toEqual(['a', 'b']);
    expect(g.edges.map((e) => e.id).sort()).toEqual(['a->b', 'b->a']);
  });

  it('ranks statuses worst first', () => {
    expect(worstStatus(['healthy', 'warning', 'info'])).toBe('warning');
    expect(worstStatus(['healthy', 'unhealthy', 'warning'])).toBe('unhealthy');
    expect(worstStatus([undefined, 'unknown'])).toBe('unknown');
  });
});

describe('layoutTopology', () => {
  it('places every node of 2,000 components without overlaps between a parent and its children', () => {
    // the root's 105 services are a group until opened
    const g = buildTopologyGraph(serviceTree(105, 18), new Set(['root']));
    expect(g.nodes.length).toBe(1 + 105 + 105 * 18);
    const nodes = g.nodes.map((n) => ({ id: n.id, ...NODE_SIZE[n.kind] }));
    const at = layoutTopology({ nodes, edges: g.edges, direction: 'TB' });
    expect(Object.keys(at)).toHaveLength(nodes.length);
    // top to bottom: each child sits below its parent
    for (const e of g.edges) expect(at[e.target].y).toBeGreaterThan(at[e.source].y + NODE_SIZE.component.height);
  });
});
