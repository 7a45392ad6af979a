import type { KubeConfig, KubernetesListObject } from '@kubernetes/client-node';
import type pg from 'pg';
import type { KubeObject } from '../../kubernetes/objects.js';
import { KindWatcher, type WatcherOptions } from '../../kubernetes/watcher.js';
import type { ScrapeResult } from '../types.js';
import { parseBlock, type KubernetesBlock } from './block.js';
import { KubeReader } from './client.js';
import { apiVersionOf, type KindInfo } from './discover.js';
import { extractKubernetes } from './extract.js';
import { kindExcluded } from './filters.js';
import { kubernetesScrapers } from './queries.js';
import { EVENTS_KIND, kubeConfigFor, scrapedKinds } from './scrape.js';

export interface LiveLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface LiveOptions {
  db: pg.Pool;
  /** The console's cluster (blocks without their own kubeconfig). */
  kube?: KubeConfig;
  log: LiveLog;
  /** Watches run, and saves happen, only while this is true (the Lease holder). */
  isLeader(): boolean;
  /** Saves a partial result (the engine's saveResult; injected so the engine and this watcher stay apart). */
  save(scraperId: string, result: ScrapeResult): Promise<unknown>;
  /**
   * Whether a full run of the scraper is under way (the engine's runner.isRunning): its list may be older than an
   * event, so events wait and are saved after the run's save, never under it.
   */
  busy?(scraperId: string): boolean;
  /** Events within this window are saved together: a rollout touching 50 pods is one save, not 50. */
  coalesceMs?: number;
  /** How often the set of kubernetes scrapers is re-read (a scraper added, edited or deleted). */
  pollMs?: number;
  watcher?: WatcherOptions;
}

const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * One block of one scraper, live: an informer per scraped kind (and one for Events); each event marks its object, and
 * after `coalesceMs` the marked objects are extracted against the informers' caches (so relations resolve) and saved
 * as a partial result. Objects deleted meanwhile are saved with deletedAt. A failed save keeps its marks and retries.
 */
class BlockWatch {
  private readonly watchers: KindWatcher[] = [];
  private readonly dirty = new Map<string, { watcher: KindWatcher; obj: KubeObject; deleted: boolean }>();
  private readonly events = new Map<string, KubeObject>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private failures = 0;
  private stopped = false;
  private reader: KubeReader | null = null;
  private started = false;

  constructor(private readonly opts: LiveOptions, readonly scraperId: string, private readonly namespace: string, private readonly block: KubernetesBlock) {}

  async start(): Promise<void> {
    const kc = await kubeConfigFor({ kube: this.opts.kube, namespace: this.namespace }, this.block);
    const reader = new KubeReader(kc);
    this.reader = reader;
    const { kinds, errors } = await scrapedKinds(reader, this.block);
    if (errors.length) this.opts.log.warn({ scraperId: this.scraperId, errors }, 'catalog: kubernetes discovery was partial; watching what was found');
    const watched: KindInfo[] = kindExcluded(this.block, 'Event') ? kinds : [...kinds, EVENTS_KIND];
    for (const k of watched) {
      if (this.stopped) return;
      const apiVersion = apiVersionOf(k);
      // list items carry no kind or apiVersion (watch events do): the caches must say what each object is
      const list = async (path: string) => {
        const l = await reader.get<KubernetesListObject<KubeObject>>(path);
        l.items = (l.items ?? []).map((o) => ({ apiVersion, kind: k.kind, ...o }));
        return l;
      };
      const ns = k.namespaced && this.block.namespace ? this.block.namespace : null;
      // the block's selectors narrow every kind but Events, as its lists do; an object that stops matching (a label
      // removed) comes as a DELETED event and is saved as gone, as the next list would find it
      const selectors = k === EVENTS_KIND ? undefined : { labelSelector: this.block.selector, fieldSelector: this.block.fieldSelector };
      const w: KindWatcher = new KindWatcher(kc, k, ns, {
        log: this.opts.log,
        onKey: () => {},
        onListed: () => {},
        // the first list's adds are the state the scheduled scrape already saved: only what follows is news
        onObject: (phase, o) => {
          if (w.synced) this.mark(w, k, phase, o);
        },
      }, { ...this.opts.watcher, list, selectors });
      this.watchers.push(w);
      w.start();
    }
    this.started = true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.all(this.watchers.map((w) => w.stop()));
    await this.flushing?.catch(() => undefined);
    this.reader?.close();
  }

  /** Every watch has listed once: from now on each change is saved as it comes. */
  synced(): boolean {
    return this.started && this.watchers.every((w) => w.synced);
  }

  /** Marks waiting to be saved (0 once every event seen so far is in the database). */
  pending(): number {
    return this.dirty.size + this.events.size + (this.flushing ? 1 : 0);
  }

  private mark(w: KindWatcher, k: KindInfo, phase: 'add' | 'update' | 'delete', o: KubeObject): void {
    const obj = o.kind ? o : { ...o, kind: k.kind, apiVersion: apiVersionOf(k) };
    if (k.kind === 'Event') {
      if (phase !== 'delete' && o.metadata.uid) this.events.set(o.metadata.uid, obj);
    } else {
      this.dirty.set(`${k.group}/${k.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, { watcher: w, obj, deleted: phase === 'delete' });
    }
    this.schedule(this.opts.coalesceMs ?? 200);
  }

  private schedule(ms: number): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.flushing) return this.schedule(ms); // one save at a time; this one runs after it
      this.flushing = this.flush().finally(() => {
        this.flushing = null;
      });
    }, ms);
    this.timer.unref();
  }

  private async flush(): Promise<void> {
    if (this.stopped || !this.opts.isLeader()) return;
    if (this.opts.busy?.(this.scraperId)) {
      this.schedule(this.opts.coalesceMs ?? 200);
      return;
    }
    const marks = [...this.dirty.values()];
    const events = [...this.events.values()];
    this.dirty.clear();
    this.events.clear();
    if (!marks.length && !events.length) return;
    // the latest state of each marked object (the cache may be newer than the event); deleted ones as last seen
    const objects = marks.filter((m) => !m.deleted)
      .map((m) => m.watcher.get(m.obj.metadata.namespace ?? '', m.obj.metadata.name ?? '') ?? m.obj);
    const deleted = marks.filter((m) => m.deleted && !m.watcher.get(m.obj.metadata.namespace ?? '', m.obj.metadata.name ?? ''));
    const lookup = this.watchers.filter((w) => w.kind.kind !== 'Event').flatMap((w) => w.list());
    const result = extractKubernetes([...objects, ...deleted.map((m) => m.obj)], events, this.block, { lookup });
    const gone = new Set(deleted.map((m) => m.obj.metadata.uid));
    const now = new Date();
    for (const item of result.items) if (gone.has(item.externalId)) item.deletedAt = now;
    // one object is not the cluster: nothing may be deleted for not being in this result
    result.complete = false;
    delete result.deleteMissing;
    try {
      await this.opts.save(this.scraperId, result);
      this.failures = 0;
    } catch (err) {
      // the database refused: put the marks back (newer ones win) and retry after a back-off; nothing is lost
      for (const m of marks) {
        const key = `${m.watcher.kind.group}/${m.watcher.kind.kind}/${m.obj.metadata.namespace ?? ''}/${m.obj.metadata.name}`;
        if (!this.dirty.has(key)) this.dirty.set(key, m);
      }
      for (const e of events) if (!this.events.has(e.metadata.uid!)) this.events.set(e.metadata.uid!, e);
      this.failures++;
      const delay = Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
      this.opts.log.warn({ scraperId: this.scraperId, err: errText(err), delay }, 'catalog: saving a kubernetes watch event failed, will retry');
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.schedule(delay);
    }
  }
}

/**
 * Live kubernetes scrapers: on the leader, every kubernetes block of every live scraper watches each kind it scrapes
 * (the reference watches seven), so a change reaches config_items in about a second; the scheduled scrape becomes a
 * reconciliation pass (deletions missed while the console was down, anything a watch missed). A block's `selector`
 * and `fieldSelector` go to the API server with each watch, so a watch sees what the block's lists see.
 */
export class KubernetesLive {
  private readonly running = new Map<string, { fingerprint: string; blocks: BlockWatch[] }>();
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;

  constructor(private readonly opts: LiveOptions) {}

  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.opts.pollMs ?? 10_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.refreshing?.catch(() => undefined);
    await Promise.all([...this.running.values()].flatMap((r) => r.blocks.map((b) => b.stop())));
    this.running.clear();
  }

  /** Marks not yet saved, across every watch. */
  pending(): number {
    let n = 0;
    for (const r of this.running.values()) for (const b of r.blocks) n += b.pending();
    return n;
  }

  /** Every block of every watched scraper has listed once (tests and the benchmark wait for it). */
  synced(): boolean {
    return [...this.running.values()].every((r) => r.blocks.every((b) => b.synced()));
  }

  /** Scrapers watched now. */
  watching(): string[] {
    return [...this.running.keys()];
  }

  /** Compares the watches with config_scrapers (and the lead): starts, restarts and stops them. */
  refresh(): Promise<void> {
    this.refreshing ??= this.doRefresh().catch((err) => {
      this.opts.log.warn({ err: errText(err) }, 'catalog: reading the kubernetes scrapers failed');
    }).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async doRefresh(): Promise<void> {
    const rows = this.opts.isLeader() ? await kubernetesScrapers(this.opts.db) : [];
    const wanted = new Map(rows.map((r) => [r.id, r]));
    for (const [id, run] of this.running) {
      const row = wanted.get(id);
      if (!row || fingerprintOf(row) !== run.fingerprint) {
        this.running.delete(id);
        await Promise.all(run.blocks.map((b) => b.stop()));
      }
    }
    for (const row of rows) {
      if (this.running.has(row.id)) continue;
      const blocks: BlockWatch[] = [];
      for (const raw of Array.isArray(row.blocks) ? row.blocks : []) {
        let block: KubernetesBlock;
        try {
          block = parseBlock(raw as Record<string, unknown>);
        } catch {
          continue; // the scheduled run reports a bad block
        }
        blocks.push(new BlockWatch(this.opts, row.id, row.namespace ?? 'default', block));
      }
      this.running.set(row.id, { fingerprint: fingerprintOf(row), blocks });
      for (const b of blocks) {
        b.start().catch((err) => this.opts.log.warn({ scraperId: row.id, err: errText(err) }, 'catalog: a kubernetes watch could not start'));
      }
    }
  }
}

const fingerprintOf = (r: { namespace: string | null; blocks: unknown }) => JSON.stringify([r.namespace, r.blocks]);
