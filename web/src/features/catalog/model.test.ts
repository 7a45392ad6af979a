import { describe, expect, it } from 'vitest';
import { groupLabels, scrapeIsStale, selectedLines, showClass, STALE_SCRAPE_MS } from './model';

describe('groupLabels', () => {
  it('groups by the prefix before the first colon or slash, unprefixed first', () => {
    const groups = groupLabels({ 'app.kubernetes.io/name': 'web', team: 'core', 'aws:cloudformation:stack': 's1', env: 'prod' });
    expect(groups.map((g) => g.prefix)).toEqual(['', 'app.kubernetes.io', 'aws']);
    expect(groups[0].rows.map((r) => [r.name, r.value])).toEqual([['env', 'prod'], ['team', 'core']]);
    expect(groups[2].rows[0]).toEqual({ name: 'cloudformation:stack', value: 's1', keys: ['aws:cloudformation:stack'] });
  });

  it('merges region/zone, vpc/subnet, os/arch and version/part-of within a group', () => {
    const groups = groupLabels({
      'topology.kubernetes.io/region': 'eu-west-1',
      'topology.kubernetes.io/zone': 'eu-west-1a',
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': 'node-1',
      'app.kubernetes.io/version': '1.2',
      'app.kubernetes.io/part-of': 'shop',
      vpc: 'vpc-1',
      subnet: 'sn-2',
    });
    const rows = Object.fromEntries(groups.flatMap((g) => g.rows.map((r) => [`${g.prefix}|${r.name}`, r.value])));
    expect(rows).toEqual({
      '|vpc/subnet': 'vpc-1/sn-2',
      'app.kubernetes.io|version/part-of': '1.2/shop',
      'kubernetes.io|hostname': 'node-1',
      'kubernetes.io|os/arch': 'linux/amd64',
      'topology.kubernetes.io|region/zone': 'eu-west-1/eu-west-1a',
    });
  });

  it('leaves half a pair as its own row and skips null values', () => {
    const groups = groupLabels({ 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': null });
    expect(groups).toEqual([{ prefix: 'kubernetes.io', rows: [{ name: 'os', value: 'linux', keys: ['kubernetes.io/os'] }] }]);
    expect(groupLabels(null)).toEqual([]);
  });
});

describe('showClass', () => {
  it('hides the class when the type already ends with it', () => {
    expect(showClass('Kubernetes::Pod', 'Pod')).toBe(false);
    expect(showClass('AWS::EC2::Instance', 'instance')).toBe(false);
    expect(showClass('File::Config', 'Deployment')).toBe(true);
    expect(showClass('Kubernetes::Pod', null)).toBe(false);
  });
});

describe('scrapeIsStale', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  it('warns after an hour unless the item is deleted', () => {
    expect(scrapeIsStale(new Date(now - STALE_SCRAPE_MS - 1000).toISOString(), null, now)).toBe(true);
    expect(scrapeIsStale(new Date(now - STALE_SCRAPE_MS + 1000).toISOString(), null, now)).toBe(false);
    expect(scrapeIsStale(new Date(now - 2 * STALE_SCRAPE_MS).toISOString(), '2026-01-01T10:00:00Z', now)).toBe(false);
    expect(scrapeIsStale(null, null, now)).toBe(false);
  });
});

describe('selectedLines', () => {
  it('keeps the chosen lines by number, in order, within the text', () => {
    expect(selectedLines('a\nb\nc\nd', [4, 2, 9])).toEqual({ 2: 'b', 4: 'd' });
  });
});
