import { CustomObjectsApi, ListWatch, Watch, type KubeConfig, type KubernetesListObject } from '@kubernetes/client-node';
import type { KindDef } from './kinds.js';
import { errorText, withTimeout, type KubeObject } from './objects.js';

export interface WatcherOptions {
  /** First back-off delay after an error; doubles per consecutive error up to maxBackoffMs, with ±50 % jitter. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Least time between two watch (or two list) requests of one informer: a server that closes watches at once
   *  cannot make it spin. */
  minGapMs?: number;
  /** Lists the collection at `path` instead of CustomObjectsApi (built-in kinds; the catalog reads raw JSON). */
  list?: (path: string) => Promise<KubernetesListObject<KubeObject>>;
  /** Only objects matching these (the API server filters lists and watches; one that stops matching is DELETED). */
  selectors?: { labelSelector?: string; fieldSelector?: string };
}

export interface WatcherEvents {
  /** An object changed (added, updated, deleted, or found missing by a relist): reconcile its key. */
  onKey(namespace: string, name: string): void;
  /** A list completed: the cache holds the whole collection as of now. */
  onListed(): void;
  /** The object itself as each event carries it (a deleted one is gone from the cache once onKey runs). */
  onObject?(phase: 'add' | 'update' | 'delete', obj: KubeObject): void;
  log: { warn(obj: object, msg: string): void; debug(obj: object, msg: string): void };
}

/** A list that takes longer than this is abandoned and retried with back-off (client-node sets no timeout). */
const LIST_TIMEOUT_MS = 60_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
const jitter = (ms: number) => Math.round(ms * (0.5 + Math.random()));

/**
 * client-node's Watch with two additions: bookmarks (so a resumed watch rarely meets 410 Gone) and a server-side
 * timeout of a few minutes (a silently dead connection is replaced), and a minimum gap between watch starts.
 * It also tells its owner when a watch was accepted (HTTP 200), which ListWatch does not.
 */
class PacedWatch extends Watch {
  private lastStart = 0;
  closed = false;

  constructor(kc: KubeConfig, private readonly minGapMs: number, private readonly onOpen: () => void, private readonly selectors: Record<string, string> = {}) {
    super(kc);
  }

  override async watch(
    path: string, params: Record<string, string | number | boolean | undefined>,
    cb: (phase: string, apiObj: any, watchObj?: any) => void, done: (err: any) => void,
  ): Promise<AbortController> {
    const wait = this.lastStart + this.minGapMs - Date.now();
    if (wait > 0) await sleep(jitter(wait));
    if (this.closed) return new AbortController(); // stopped while waiting: stay idle
    this.lastStart = Date.now();
    let ended = false;
    let watchdog: NodeJS.Timeout | undefined;
    const timeoutSeconds = 240 + Math.floor(Math.random() * 120);
    const ctl = await super.watch(path, { ...params, ...this.selectors, allowWatchBookmarks: true, timeoutSeconds }, cb, (err) => {
      ended = true;
      clearTimeout(watchdog);
      done(err);
    });
    if (this.closed) {
      // stopped while connecting: ListWatch only aborts the request it already holds, so this one would stay open
      ctl.abort();
      return ctl;
    }
    if (!ended) {
      this.onOpen();
      // A healthy server ends the watch after timeoutSeconds; one still open well after that is a dead connection
      // (no TCP reset ever came): abort it, and the informer resumes from its resourceVersion.
      watchdog = setTimeout(() => ctl.abort(), (timeoutSeconds + 30) * 1000);
      watchdog.unref();
    }
    return ctl;
  }
}

/** What a watcher needs of a kind: a registry KindDef, or any kind discovery found (group '' is the core API). */
export type WatchedKind = Pick<KindDef, 'kind' | 'group' | 'version' | 'plural'>;

/**
 * One informer (list + watch) of one kind, cluster-wide or in one namespace, that never gives up: client-node's
 * ListWatch relists by itself on 410 Gone and resumes from the last resourceVersion after a clean close, but stops on
 * any other error; here such an error restarts it after an exponential back-off with jitter, resuming from the last
 * resourceVersion it saw (a relist only when that is gone). Lists are paced like watches, so there are no relist
 * storms.
 */
export class KindWatcher {
  private readonly informer: ListWatch<KubeObject>;
  private readonly paced: PacedWatch;
  private stopped = true;
  private attempts = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  private lastList = 0;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;

  /** A list completed at least once: the cache may be compared with the database. */
  synced = false;
  /** The last list or watch succeeded and no error came since. */
  watching = false;
  lastSyncAt: Date | null = null;
  lastError: string | null = null;

  constructor(kc: KubeConfig, readonly kind: WatchedKind, readonly namespace: string | null, private readonly events: WatcherEvents, opts: WatcherOptions = {}) {
    this.backoffMs = opts.backoffMs ?? 500;
    this.maxBackoffMs = opts.maxBackoffMs ?? 10_000;
    const minGap = opts.minGapMs ?? 1_000;
    const api = kc.makeApiClient(CustomObjectsApi);
    const { group, version, plural } = kind;
    const root = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const path = namespace ? `${root}/namespaces/${namespace}/${plural}` : `${root}/${plural}`;
    const selectors = Object.fromEntries(Object.entries(opts.selectors ?? {}).filter(([, v]) => v)) as Record<string, string>;
    const query = Object.keys(selectors).length ? `?${new URLSearchParams(selectors)}` : '';
    this.paced = new PacedWatch(kc, minGap, () => this.healthy(), selectors);
    const list = async (): Promise<KubernetesListObject<KubeObject>> => {
      const wait = this.lastList + minGap - Date.now();
      if (wait > 0) await sleep(jitter(wait));
      this.lastList = Date.now();
      const out = await withTimeout(
        opts.list ? opts.list(path + query) : namespace ? api.listNamespacedCustomObject({ group, version, namespace, plural, ...selectors }) : api.listClusterCustomObject({ group, version, plural, ...selectors }),
        LIST_TIMEOUT_MS, `list ${plural}`,
      ) as KubernetesListObject<KubeObject>;
      // ListWatch applies the list right after this resolves; tell the owner once that is done
      setTimeout(() => {
        this.synced = true;
        this.lastSyncAt = new Date();
        this.healthy();
        this.events.onListed();
      }, 0).unref();
      return out;
    };
    this.informer = new ListWatch<KubeObject>(path, this.paced, list, false);
    const key = (o: KubeObject) => {
      this.attempts = 0;
      this.events.onKey(o.metadata.namespace ?? '', o.metadata.name ?? '');
    };
    const phase = (p: 'add' | 'update' | 'delete') => (o: KubeObject) => {
      key(o);
      this.events.onObject?.(p, o);
    };
    this.informer.on('add', phase('add'));
    this.informer.on('update', phase('update'));
    this.informer.on('delete', phase('delete'));
    this.informer.on('error', (err: unknown) => this.failed(err));
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.paced.closed = false;
    this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.paced.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    this.watching = false;
    await this.informer.stop().catch(() => undefined);
  }

  /** The cached object, as the API server last described it. */
  get(namespace: string, name: string): KubeObject | undefined {
    return this.informer.get(name, namespace || undefined);
  }

  list(): readonly KubeObject[] {
    return this.informer.list();
  }

  private run(): void {
    this.informer.start().catch((err) => this.failed(err));
  }

  private healthy(): void {
    this.attempts = 0;
    this.watching = true;
    this.lastError = null;
  }

  private failed(err: unknown): void {
    if (this.stopped) return; // stop() aborts the watch, which reports an abort error
    this.watching = false;
    this.lastError = errorText(err);
    const delay = jitter(Math.min(this.maxBackoffMs, this.backoffMs * 2 ** this.attempts));
    // the first error of a streak is worth a warning; the retries that follow it are not
    const log = this.attempts === 0 ? this.events.log.warn.bind(this.events.log) : this.events.log.debug.bind(this.events.log);
    this.attempts++;
    log({ kind: this.kind.kind, namespace: this.namespace, err: this.lastError, delay }, 'kubernetes: informer error, restarting');
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (!this.stopped) this.run();
    }, delay);
    this.restartTimer.unref();
  }
}
