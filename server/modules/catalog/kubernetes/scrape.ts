import { KubeConfig } from '@kubernetes/client-node';
import { kubeKeyRefReader } from '../../../lib/value-from.js';
import type { ScrapeContext, ScrapeResult, ScraperType } from '../types.js';
import { parseBlock, type KubernetesBlock } from './block.js';
import { KubeReader } from './client.js';
import { discoverKinds, listKind, type KindInfo } from './discover.js';
import { extractKubernetes } from './extract.js';
import { kindExcluded } from './filters.js';
import type { KubeItem } from './object.js';

/** Kinds listed at once: enough to hide latency, few enough not to flood the API server (client-go's default is 5). */
const LIST_CONCURRENCY = 4;
const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The cluster a block scrapes: its `kubeconfig` EnvVar (the text of a kubeconfig, or a path starting with `/`; from a
 * Secret or ConfigMap of the scraper's namespace with valueFrom), else the console's own connection.
 */
export async function kubeConfigFor(ctx: Pick<ScrapeContext, 'kube' | 'namespace'>, block: KubernetesBlock): Promise<KubeConfig> {
  const ref = block.kubeconfig;
  if (!ref) {
    if (!ctx.kube) throw new Error('kubernetes: the console has no cluster connection and the block gives no kubeconfig');
    return ctx.kube;
  }
  let text = ref.value;
  const from = ref.valueFrom;
  if (!text && (from?.secretKeyRef || from?.configMapKeyRef)) {
    if (!ctx.kube) throw new Error('kubeconfig.valueFrom: needs the console\'s cluster connection to read it');
    const key = (from.secretKeyRef ?? from.configMapKeyRef)!;
    const data = await kubeKeyRefReader(ctx.kube)(from.secretKeyRef ? 'secret' : 'configmap', ctx.namespace, key.name ?? '');
    text = data[key.key];
    // the value is a credential: name where it should be, never what it holds
    if (!text) throw new Error(`kubeconfig.valueFrom: ${from.secretKeyRef ? 'secret' : 'configmap'} ${ctx.namespace}/${key.name} has no key ${key.key}`);
  }
  if (!text) throw new Error('kubeconfig: neither value nor valueFrom.secretKeyRef/configMapKeyRef');
  const kc = new KubeConfig();
  try {
    if (text.startsWith('/')) kc.loadFromFile(text);
    else kc.loadFromString(text);
  } catch (err) {
    throw new Error(`kubeconfig: cannot be loaded (${errText(err).split('\n')[0].slice(0, 120)})`);
  }
  if (!kc.getCurrentCluster()) throw new Error('kubeconfig: no current cluster');
  return kc;
}

/** Runs `fn` over `items` with at most `n` at a time. */
async function eachLimited<T>(items: readonly T[], n: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

/** What a block scrapes: the discovered kinds minus exclusions (Secrets only when named). */
export async function scrapedKinds(reader: KubeReader, block: KubernetesBlock): Promise<{ kinds: KindInfo[]; errors: string[] }> {
  const found = await discoverKinds(reader);
  return { kinds: found.kinds.filter((k) => !kindExcluded(block, k.kind)), errors: found.errors };
}

export const EVENTS_KIND: KindInfo = { group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true };

/**
 * One full scrape of a block: discovery, every kind listed in pages, the Events, then the pure extractor. A kind that
 * cannot be listed is an error and makes the run partial (`complete: false`: nothing is deleted on its account).
 */
export async function scrapeKubernetes(ctx: ScrapeContext, blockIn: Record<string, unknown>): Promise<ScrapeResult> {
  let block: KubernetesBlock;
  try {
    block = parseBlock(blockIn);
  } catch (err) {
    return { items: [], changes: [], analysis: [], relationships: [], errors: [`kubernetes: ${errText(err)}`], complete: false };
  }
  const kc = await kubeConfigFor(ctx, block);
  const reader = new KubeReader(kc, ctx.signal);
  try {
    const errors: string[] = [];
    const version = await reader.get<{ gitVersion?: string }>('/version').catch(() => ({ gitVersion: undefined }));
    const { kinds, errors: discoveryErrors } = await scrapedKinds(reader, block);
    errors.push(...discoveryErrors);
    const list = { namespace: block.namespace || null, labelSelector: block.selector, fieldSelector: block.fieldSelector };
    const objects: KubeItem[] = [];
    await eachLimited(kinds, LIST_CONCURRENCY, async (k) => {
      if (ctx.signal.aborted) return;
      // a cluster-scoped kind is still listed when the block names a namespace: its Nodes and Namespaces are context
      try {
        objects.push(...await listKind(reader, k, list));
      } catch (err) {
        errors.push(`list ${k.plural}${k.group ? `.${k.group}` : ''}: ${errText(err)}`);
      }
    });
    let events: KubeItem[] = [];
    if (!kindExcluded(block, 'Event')) {
      try {
        events = await listKind(reader, EVENTS_KIND, { namespace: block.namespace || null });
      } catch (err) {
        errors.push(`list events: ${errText(err)}`);
      }
    }
    if (ctx.signal.aborted) errors.push('kubernetes: the run was stopped before every kind was listed');
    ctx.log.debug({ scraperId: ctx.scraperId, kinds: kinds.length, objects: objects.length, events: events.length }, 'kubernetes: listed');
    const result = extractKubernetes(objects, events, block, {
      cluster: { server: reader.server, ...(version.gitVersion ? { version: version.gitVersion } : {}) },
    });
    result.errors.unshift(...errors);
    result.complete = result.complete && errors.length === 0;
    // a list is exhaustive: an object it no longer returns was deleted (not merely unseen for a while)
    result.deleteMissing = true;
    return result;
  } finally {
    reader.close();
  }
}

/** The `kubernetes` scraper type (registered in ../scrapers.ts). */
export const kubernetesScraper: ScraperType = { key: 'kubernetes', scrape: scrapeKubernetes };
