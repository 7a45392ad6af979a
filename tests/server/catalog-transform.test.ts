import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CommonScraper } from '../../server/contracts/catalog.js';
import { saveResult } from '../../server/modules/catalog/engine/save.js';
import { applyTransforms, extractDocuments } from '../../server/modules/catalog/extract.js';
import { fileScraper } from '../../server/modules/catalog/scrapers/file.js';
import { emptyResult, type ScrapeContext, type ScrapedItem } from '../../server/modules/catalog/types.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * The block fields config-db applies beyond excludes and masks: a script (`transform.javascript`, `gotemplate`,
 * `expr`, `jsonpath`) turning a document into items, `properties` templated per item, and `transform.locations` /
 * `transform.aliases` (config_locations rows and extra external ids), down to what the engine stores.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const FIXTURES = 'tests/fixtures/config-db';
const ctx = (): ScrapeContext => ({
  db: t.db, scraperId: randomUUID(), namespace: 'default', signal: new AbortController().signal, log: { info() {}, warn() {}, debug() {} },
});
const asConfigDb = (i: ScrapedItem) => ({ config_class: i.configClass, config_type: i.type, name: i.name, id: i.externalId, config: i.config });
const docs = (...configs: unknown[]) => configs.map((config, i) => ({ config, source: `doc ${i}` }));

describe('transform scripts: one document in, items out', () => {
  for (const name of ['file-script', 'file-script-gotemplate', 'file-exclusion']) {
    it(`config-db's ${name}.yaml gives its expected items`, async () => {
      const block = parse(await readFile(join(FIXTURES, `${name}.yaml`), 'utf8')).spec.file[0];
      block.paths = block.paths.map((p: string) => p.replace(/^fixtures\//, `${FIXTURES}/`));
      const r = await fileScraper.scrape(ctx(), block);
      expect(r.errors).toEqual([]);
      const want = JSON.parse(await readFile(join(FIXTURES, 'expected', `${name}.json`), 'utf8'));
      expect(r.items.map(asConfigDb)).toEqual(want.map(({ last_modified: _, ...x }: Record<string, unknown>) => x));
    }, 60_000);
  }

  it('javascript sees config and result, may lift id/name/type/aliases; a failing script is an error of its document only', async () => {
    const block: CommonScraper = {
      type: 'Thing', id: '$.key',
      transform: {
        javascript: `if (config.bad) throw new Error('bad doc');
          config.list.map(function (x) { return { key: x, name: 'n-' + x, from: result.source, aliases: ['alias/' + x], sandboxed: typeof process }; })`,
      },
    };
    const r = await extractDocuments(block, docs({ list: ['a', 'b'] }, { bad: true }, { list: ['c'] }));
    expect(r.items.map((i) => [i.externalId, i.name, i.aliases])).toEqual([['a', 'n-a', ['alias/a']], ['b', 'n-b', ['alias/b']], ['c', 'n-c', ['alias/c']]]);
    expect(r.items[0].config).toEqual({ key: 'a', name: 'n-a', from: 'doc 0', aliases: ['alias/a'], sandboxed: 'undefined' });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/^doc 1: transform\.javascript: .*bad doc/);
  }, 60_000);

  it('javascript that never ends is stopped at its time limit; output that is not a list of objects is an error', async () => {
    const loop = await extractDocuments({ type: 'T', id: 'x', transform: { javascript: 'while (true) {}' } }, docs({}));
    expect(loop.items).toEqual([]);
    expect(loop.errors[0]).toMatch(/transform\.javascript: .*(time|interrupted)/i);
    const notList = await extractDocuments({ type: 'T', id: 'x', transform: { gotemplate: 'not json {{.config.a}}' } }, docs({ a: 1 }));
    expect(notList.errors[0]).toMatch(/transform\.gotemplate must return JSON/);
    const scalars = await extractDocuments({ type: 'T', id: 'x', transform: { expr: '[1, 2]' } }, docs({}));
    expect(scalars.errors[0]).toMatch(/must return a list of objects; element 0 is 1/);
  }, 60_000);

  it('jsonpath: each value selected is an item, one list selected is its elements', async () => {
    const block = (jsonpath: string): CommonScraper => ({ type: 'T', id: '$.n', transform: { jsonpath } });
    const doc = { groups: [{ users: [{ n: 'u1' }, { n: 'u2' }] }, { users: [{ n: 'u3' }] }] };
    expect((await extractDocuments(block('$.groups[*].users[*]'), docs(doc))).items.map((i) => i.externalId)).toEqual(['u1', 'u2', 'u3']);
    expect((await extractDocuments(block('$.groups[0].users'), docs(doc))).items.map((i) => i.externalId)).toEqual(['u1', 'u2']);
  });
});

const k8s = (kind: string, name: string, parent?: string, more: Partial<ScrapedItem> = {}): ScrapedItem => ({
  externalId: `uid-${name}`, name, type: `Kubernetes::${kind}`, configClass: kind, config: { kind, metadata: { name } },
  tags: { cluster: 'c1', namespace: 'ns1' }, labels: {}, parent: parent ? { type: parent.split('/')[0], externalId: `uid-${parent.split('/')[1]}` } : undefined, ...more,
});

describe('properties, locations and aliases on built items', () => {
  const cluster = k8s('Cluster', 'c1');
  const ns = k8s('Namespace', 'ns1', 'Kubernetes::Cluster/c1');
  const pod = k8s('Pod', 'web-1', 'Kubernetes::Namespace/ns1', { labels: { node: 'n1' }, config: { kind: 'Pod', metadata: { name: 'web-1' }, spec: { nodeName: 'n1' }, secret: 'x' } });
  const items = () => [cluster, ns, pod].map((i) => structuredClone(i));

  it('properties: every text templated per item, kept where the filter holds, after masks', () => {
    const r = applyTransforms({
      properties: [
        { name: 'node', text: '{{.config.spec.nodeName}}', filter: 'config_type == "Kubernetes::Pod"', links: [{ url: 'https://n/{{.name}}', label: 'open' }] },
        { name: 'owner', text: '{{.tags.cluster}}/{{.name}}', order: 2, headline: true },
        { name: 'secret', text: '{{.config.secret}}', filter: 'has(config.secret)' },
      ],
      transform: { mask: [{ selector: 'true', jsonpath: '$.secret', value: '***' }] },
    }, items());
    expect(r.errors).toEqual([]);
    const byName = new Map(r.items.map((i) => [i.name, i.properties]));
    expect(byName.get('web-1')).toEqual([
      { name: 'node', text: 'n1', links: [{ url: 'https://n/web-1', label: 'open' }] },
      { name: 'owner', text: 'c1/web-1', order: 2, headline: true },
      { name: 'secret', text: '***' },
    ]);
    expect(byName.get('c1')).toEqual([{ name: 'owner', text: 'c1/c1', order: 2, headline: true }]);
  });

  it('locations and aliases: type patterns, filters, templates, withParent; aliases cleaned as config-db does', () => {
    const r = applyTransforms({
      transform: {
        locations: [
          { type: 'Kubernetes::*', values: ['cluster://kubernetes/{{.tags.cluster}}'] },
          { type: 'Kubernetes::*', filter: 'has(labels.node)', values: ['node://kubernetes/{{.tags.cluster}}/{{.labels.node}}'] },
          { type: 'Kubernetes::Pod', withParent: 'Kubernetes::Cluster', values: ['via-parent://{{.parent.name}}'] },
        ],
        aliases: [
          { type: 'Kubernetes::Namespace,Kubernetes::Pod', values: ['kubernetes/{{.tags.cluster}}/{{.config_class}}/{{.name}}', '  ', 'kubernetes/{{.labels.missing}}/'] },
          { type: '!Kubernetes::Pod,*', values: ['any://{{.name}}'] },
        ],
      },
    }, items());
    expect(r.errors).toEqual([]);
    const by = new Map(r.items.map((i) => [i.name, i]));
    expect(by.get('web-1')!.locations).toEqual(['cluster://kubernetes/c1', 'node://kubernetes/c1/n1', 'via-parent://c1']);
    expect(by.get('ns1')!.locations).toEqual(['cluster://kubernetes/c1']);
    // empty, whitespace-only and "/"-ending (an empty placeholder) aliases are dropped
    expect(by.get('web-1')!.aliases).toEqual(['kubernetes/c1/Pod/web-1']);
    expect(by.get('ns1')!.aliases).toEqual(['kubernetes/c1/Namespace/ns1', 'any://ns1']);
    expect(by.get('c1')!.aliases).toEqual(['any://c1']);
  });

  it('texts take $( ) actions as config-db\'s second delimiter pair, after {{ }}', () => {
    const r = applyTransforms({
      properties: [{ name: 'ns', text: '$(.tags.namespace)/{{.name}}', tooltip: 'len $(len .name)' }],
      transform: { aliases: [{ type: 'Kubernetes::Pod', values: ['pod://$(index .tags "cluster")/$(.name)'] }] },
    }, [structuredClone(pod)]);
    expect(r.errors).toEqual([]);
    expect(r.items[0].properties).toEqual([{ name: 'ns', text: 'ns1/web-1', tooltip: 'len 5' }]);
    expect(r.items[0].aliases).toEqual(['pod://c1/web-1']);
  });

  it('a rule needing an ancestor this result lacks leaves stored locations alone; a failing filter is an error, the item kept', () => {
    const lone = applyTransforms({ transform: { locations: [{ type: 'Kubernetes::Pod', withParent: 'Kubernetes::Cluster', values: ['x://{{.parent.name}}'] }] } }, [structuredClone(pod)]);
    expect(lone.items[0].locations).toBeUndefined();
    const bad = applyTransforms({ transform: { aliases: [{ filter: 'labels.nope == 1', values: ['a'] }] } }, items());
    expect(bad.items).toHaveLength(3);
    expect(bad.errors[0]).toMatch(/^Kubernetes::Cluster\/uid-c1: transform\.aliases: /);
  });
});

describe('what the engine stores', () => {
  it('locations become config_locations rows get_parents_by_location reads; aliases are external ids links resolve by', async () => {
    const { rows: [{ id: scraperId }] } = await t.db.query<{ id: string }>(
      `INSERT INTO config_scrapers (name, namespace, spec, source) VALUES ($1, 'default', '{}', 'UI') RETURNING id`, [`tr-${randomUUID().slice(0, 8)}`]);
    const block: CommonScraper = {
      type: '$.type', id: '$.id', name: '$.name',
      transform: {
        aliases: [{ type: 'Test::Account', values: ['account://{{.name}}'] }],
        locations: [{ type: 'Test::Bucket', values: ['account://{{.config.account}}'] }],
      },
    };
    const out = await extractDocuments(block, docs(
      { id: 'acc-1', type: 'Test::Account', name: 'prod' },
      { id: 'b-1', type: 'Test::Bucket', name: 'logs', account: 'prod' },
    ));
    expect(out.errors).toEqual([]);
    await saveResult(t.db, scraperId, { ...emptyResult(), items: out.items, relationships: [{ from: { type: 'Test::Account', externalId: 'account://prod' }, to: { type: 'Test::Bucket', externalId: 'b-1' }, relation: 'soft' }] });
    const { rows: items } = await t.db.query<{ id: string; name: string; external_id: string[] }>(
      'SELECT id, name, external_id FROM config_items WHERE scraper_id = $1 ORDER BY name', [scraperId]);
    const [bucket, account] = items;
    expect(account.external_id.sort()).toEqual(['acc-1', 'account://prod']);
    const { rows: locs } = await t.db.query('SELECT location FROM config_locations WHERE id = $1', [bucket.id]);
    expect(locs).toEqual([{ location: 'account://prod' }]);
    const { rows: parents } = await t.db.query('SELECT id, name FROM get_parents_by_location($1)', [bucket.id]);
    expect(parents).toEqual([{ id: account.id, name: 'prod' }]);
    const { rows: links } = await t.db.query('SELECT config_id, related_id FROM config_relationships WHERE related_id = $1', [bucket.id]);
    expect(links).toEqual([{ config_id: account.id, related_id: bucket.id }]);
  }, 60_000);
});
