import { describe, expect, it } from 'vitest';
import type { TopologyComponent } from '@contracts/topology';
import { cardLines } from './card-lines';
import {
  ancestorIds, borderColor, cardProperties, cardSize, clampWidth, childrenByHealth, loadPrefs, savePrefs, showProperty,
  sortChoices, topologyQuery, TOPOLOGY_URL_DEFAULTS, DEFAULT_SORT,
} from './model';

const comp = (c: Partial<TopologyComponent> & { name: string }): TopologyComponent =>
  ({ id: c.name, status: 'unknown', summary: {}, ...c }) as TopologyComponent;

describe('filters → /api/topology query', () => {
  it('sends hidden=false and the default Health desc sort when nothing is chosen', () => {
    expect(topologyQuery(TOPOLOGY_URL_DEFAULTS, DEFAULT_SORT)).toEqual({ hidden: 'false', depth: '2', sortBy: 'status', sortOrder: 'desc' });
  });

  it('asks only for the levels drawn: roots and their children, or the zoomed component, its children and theirs; all for the graph', () => {
    expect(topologyQuery(TOPOLOGY_URL_DEFAULTS, DEFAULT_SORT).depth).toBe('2');
    expect(topologyQuery(TOPOLOGY_URL_DEFAULTS, DEFAULT_SORT, 'abc').depth).toBe('3');
    expect(topologyQuery({ ...TOPOLOGY_URL_DEFAULTS, view: 'graph' }, DEFAULT_SORT, 'abc').depth).toBeUndefined();
  });

  it('maps each filter to its parameter; Type also flattens; the id is the zoomed component', () => {
    const q = topologyQuery(
      { ...TOPOLOGY_URL_DEFAULTS, status: 'unhealthy', type: 'Database', team: 'ops', labels: 'app=web,env=prod', agent: 'local', showHidden: true },
      { by: 'updated', order: 'asc' },
      'abc',
    );
    expect(q).toEqual({
      id: 'abc', status: 'unhealthy', type: 'Database', flatten: 'true', team: 'ops', labels: 'app=web,env=prod',
      agent_id: 'local', hidden: 'true', sortBy: 'updated_at', sortOrder: 'asc',
    });
  });

  it('sorts by a headline property as field:<name>, and offers each headline property once', () => {
    expect(topologyQuery(TOPOLOGY_URL_DEFAULTS, { by: 'field:cpu', order: 'desc' }).sortBy).toBe('field:cpu');
    const cards = [
      comp({ name: 'a', properties: [{ name: 'cpu', headline: true }, { name: 'zone' }] }),
      comp({ name: 'b', properties: [{ name: 'cpu', headline: true }, { name: 'memory', headline: true }] }),
    ];
    expect(sortChoices(cards).map((c) => c.label)).toEqual(['Health', 'Name', 'Type', 'Last Updated', 'cpu', 'memory']);
  });
});

describe('width and sort kept in the browser', () => {
  it('round-trips, clamps to 250–768 in steps of 2, and falls back to 554 and Health desc', () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    expect(loadPrefs(storage)).toEqual({ width: 554, sort: { by: 'health', order: 'desc' } });
    savePrefs({ width: 301, sort: { by: 'name', order: 'asc' } }, storage);
    expect(loadPrefs(storage)).toEqual({ width: 302, sort: { by: 'name', order: 'asc' } });
    store.set('topology.prefs', '{"width": 9000, "sort": {"by": "", "order": "up"}}');
    expect(loadPrefs(storage)).toEqual({ width: 768, sort: { by: 'health', order: 'desc' } });
    store.set('topology.prefs', 'not json');
    expect(loadPrefs(storage).width).toBe(554);
    expect(clampWidth(100)).toBe(250);
  });

  it('picks the largest of the four card sizes the width holds', () => {
    expect([250, 258, 355, 356, 553, 554, 768].map(cardSize)).toEqual(['small', 'medium', 'medium', 'large', 'large', 'extra_large', 'extra_large']);
  });
});

describe('the card', () => {
  it('borders unhealthy red and warning orange, nothing else', () => {
    expect(borderColor({ status: 'unhealthy' })).toBe('red');
    expect(borderColor({ status: 'warning' })).toBe('orange');
    expect(borderColor({ status: 'healthy', health: 'warning' })).toBeUndefined();
    expect(borderColor({ status: 'unknown', health: 'unhealthy' })).toBe('red');
  });

  it('formats a value with a max as a bar (orange above 70 %), money with k above 1000, units', () => {
    expect(showProperty({ name: 'cpu', value: 800, max: 1000, unit: 'millicores' })).toMatchObject({ text: '0.80 of 1.00', percent: 80, high: true });
    expect(showProperty({ name: 'mem', value: 512 * 1024 * 1024, max: 1024 * 1024 * 1024, unit: 'bytes' })).toMatchObject({ text: '512 MB of 1 GB', percent: 50, high: false });
    expect(showProperty({ name: 'cost', value: 1500, type: 'currency' })?.text).toBe('$1.5k');
    expect(showProperty({ name: 'cost', value: 12.5, type: 'currency' })?.text).toBe('$12.5');
    expect(showProperty({ name: 'up', value: 0.25, unit: 'percent' })?.text).toBe('25%');
    expect(showProperty({ name: 'site', text: 'https://example.com/x', type: 'url' })).toMatchObject({ text: 'example.com/x', url: 'https://example.com/x' });
    expect(showProperty({ name: 'secret', text: 'x', type: 'hidden' })).toBeUndefined();
    expect(showProperty({ name: 'empty' })).toBeUndefined();
  });

  it('splits headline metrics from the properties and collapses those after six', () => {
    const props = [{ name: 'cpu', value: 1, headline: true }, ...Array.from({ length: 8 }, (_, i) => ({ name: `p${i}`, text: `v${i}` }))];
    const { headline, rest, collapsed } = cardProperties({ properties: props });
    expect(headline.map((p) => p.label)).toEqual(['cpu']);
    expect(rest).toHaveLength(8);
    expect(collapsed).toBe(2);
  });

  it('lists children worst first, and links checks, incidents and insights with their filters', () => {
    const c = comp({
      name: 'svc', id: 'c1',
      summary: {
        checks: { healthy: 2, unhealthy: 1 },
        incidents: { availability: { High: 1 } },
        insights: Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((t) => [t, { critical: 1 }])),
      },
      components: [comp({ name: 'ok', status: 'healthy' }), comp({ name: 'bad', status: 'unhealthy' }), comp({ name: 'meh', status: 'warning' })],
    });
    expect(childrenByHealth(c.components!).map((x) => x.name)).toEqual(['bad', 'meh', 'ok']);
    const { lines, moreInsights } = cardLines(c);
    expect(moreInsights).toBe(1);
    expect(lines[0]).toMatchObject({ label: 'Health Checks', href: '/health' });
    expect(lines[0].chips.map((x) => x.href)).toEqual(['/health?status=unhealthy', '/health?status=healthy']);
    expect(lines[1].href).toBe('/incidents?type=availability&component=c1');
    expect(lines[1].chips[0]).toMatchObject({ href: '/incidents?severity=High&component=c1&type=availability', color: 'orange' });
    expect(lines[2].chips[0].href).toBe('/catalog/insights?component=c1&type=a&severity=critical');
    expect(lines.filter((l) => l.kind === 'insight')).toHaveLength(5);
    expect(lines.filter((l) => l.kind === 'child').map((l) => l.href)).toEqual(['/topology/bad', '/topology/meh', '/topology/ok']);
    expect(cardLines(c, true).lines.filter((l) => l.kind === 'insight')).toHaveLength(6);
  });

  it('walks the breadcrumb from the path, then through the selector parent it came by', () => {
    expect(ancestorIds({ id: 'c', path: 'a.b' })).toEqual(['a', 'b']);
    expect(ancestorIds({ id: 'c', path: 'a.b' }, 'x')).toEqual(['a', 'b', 'x']);
    expect(ancestorIds({ id: 'c', path: 'a.b' }, 'b')).toEqual(['a', 'b']);
    expect(ancestorIds({ id: 'c' })).toEqual([]);
  });
});
