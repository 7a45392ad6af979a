import { promisify } from 'node:util';
import { gzip as gzipCb, constants as zlib } from 'node:zlib';

const gzip = promisify(gzipCb);

/** A ready answer: the body bytes, a gzip copy of them, and when and from which state it was built. */
export interface ReadyBody {
  json: Buffer;
  gzip: Buffer;
  builtAt: number;
}

export interface FleetSummaryOptions {
  /**
   * Results changed since an answer was built: it is rebuilt on the next request once it is this old. This bounds
   * how stale the whole-fleet status is (see FleetSummaryCache).
   */
  refreshMs?: number;
  /**
   * After changes, wait at least this many times the last build's duration between builds, so rebuilding a big
   * fleet takes at most about 1/costFactor of the time (and of the garbage: each build makes ~3x the body).
   */
  costFactor?: number;
  /** Rebuilt on the next request once this old even when no change was seen (changes this replica cannot see). */
  maxAgeMs?: number;
  /** Answers kept (window x sort); the least recently used goes first. */
  maxEntries?: number;
  now?: () => number;
}

interface Slot {
  entry: ReadyBody | null;
  /** The change counter and generation the entry was built from. */
  seq: number;
  generation: number;
  /** How long the last build took, ms. */
  buildMs: number;
  building: { promise: Promise<ReadyBody>; generation: number; seq: number } | null;
}

/**
 * The whole-fleet `checks_summary` answer (no checkID, canaryID, labels or deleteFrom), kept ready per window and
 * sort as the body bytes plus a gzip copy: at 10,000 checks PostgreSQL spends ~100-150 ms turning the rows into
 * 7 MB of JSON, so building it per request cannot meet the 100 ms target once a few clients ask at once.
 *
 * Staleness, on purpose:
 * - `invalidate()` (a canary or check created, updated or deleted here or, through the event bus, on another
 *   replica): answers built before are never served again; the next request waits for a new build. So a new check
 *   appears, and a deleted one disappears, at once.
 * - `changed()` (new results, from this replica's scheduler, Run Now, pushes, or other replicas' live-update
 *   events): once the answer is R old, a request starts a rebuild; while it runs, requests get the current answer
 *   if it is under 2R old, else they wait for the build. R = max(3 s, 10 x the last build's duration): 3 s up to
 *   several thousand checks, ~3-8 s at 10,000-15,000 checks on a busy 2-core machine (builds of 0.25-0.8 s), so
 *   rebuilding never takes more than about a tenth of the time. Status and uptime in the whole-fleet list are
 *   therefore at most 2R (6 s on a small fleet) behind the newest result, typically R plus one build. Filtered and
 *   one-check summaries are computed on demand and never stale.
 * - Whatever happens unseen (the precomputed window stats refreshed every minute; another replica's writes if the
 *   event bus is down) is picked up by a rebuild once the answer is `maxAgeMs` (60 s) old, served meanwhile.
 * Builds are single-flight: concurrent requests for one key share one build.
 */
export class FleetSummaryCache {
  private readonly slots = new Map<string, Slot>();
  private generation = 0;
  private seq = 0;
  private readonly refreshMs: number;
  private readonly costFactor: number;
  private readonly maxAgeMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(private readonly build: (key: string) => Promise<string | Buffer>, opts: FleetSummaryOptions = {}) {
    this.refreshMs = opts.refreshMs ?? 3_000;
    this.costFactor = opts.costFactor ?? 10;
    this.maxAgeMs = opts.maxAgeMs ?? 60_000;
    this.maxEntries = opts.maxEntries ?? 4;
    this.now = opts.now ?? Date.now;
  }

  /** Checks were added, changed or removed: nothing built before is served again. */
  invalidate(): void {
    this.generation++;
    this.seq++;
  }

  /** Results changed: answers are rebuilt once R old (see above). */
  changed(): void {
    this.seq++;
  }

  /** The ready answer of `key`, building it first when there is none or it is too stale. */
  async get(key: string): Promise<ReadyBody> {
    let slot = this.slots.get(key);
    if (slot) {
      // most recently used last, so the first key is the one to evict
      this.slots.delete(key);
      this.slots.set(key, slot);
    } else {
      slot = { entry: null, seq: -1, generation: -1, buildMs: 0, building: null };
      this.slots.set(key, slot);
      for (const k of this.slots.keys()) {
        if (this.slots.size <= this.maxEntries) break;
        if (k !== key) this.slots.delete(k);
      }
    }
    const e = slot.entry;
    if (!e || slot.generation !== this.generation) return this.rebuild(key, slot);
    const age = this.now() - e.builtAt;
    const changed = slot.seq !== this.seq;
    const refreshMs = Math.max(this.refreshMs, this.costFactor * slot.buildMs);
    if (changed ? age < refreshMs : age < this.maxAgeMs) return e;
    // Rebuild, and meanwhile answer with what there is when that is under 2R old (or nothing is known to have
    // changed): under steady requests nobody waits for a build, and status stays within 2R.
    const next = this.rebuild(key, slot);
    if (!changed || age < 2 * refreshMs) {
      // a failed background build keeps the current answer; the first request that has to wait gets the error
      next.catch(() => undefined);
      return e;
    }
    return next;
  }

  /** Resolves once no build is under way (tests; a caller that must see every started build land). */
  async settled(): Promise<void> {
    for (const slot of this.slots.values()) await slot.building?.promise.catch(() => undefined);
  }

  private rebuild(key: string, slot: Slot): Promise<ReadyBody> {
    const b = slot.building;
    // single flight: a build that started after the last invalidation serves everyone who asks meanwhile
    if (b && b.generation === this.generation) return b.promise;
    const generation = this.generation;
    const seq = this.seq;
    const builtAt = this.now();
    const promise = (async () => {
      const built = await this.build(key);
      const json = typeof built === 'string' ? Buffer.from(built) : built;
      // level 4: quicker than the default 6 for a few percent more bytes; done once per build, in libuv's pool
      const gz = await gzip(json, { level: 4, strategy: zlib.Z_DEFAULT_STRATEGY });
      return { json, gzip: gz, builtAt };
    })();
    const building = { promise, generation, seq };
    slot.building = building;
    promise.then(
      (entry) => {
        if (slot.building === building) slot.building = null;
        slot.buildMs = this.now() - builtAt;
        // a newer build may have finished first; keep the newest
        if (generation === this.generation && (!slot.entry || slot.seq <= seq)) {
          slot.entry = entry;
          slot.seq = seq;
          slot.generation = generation;
        }
      },
      () => {
        if (slot.building === building) slot.building = null;
      },
    );
    return promise;
  }
}
