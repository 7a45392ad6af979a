import { isCelUint, type CelValue } from '@bufbuild/cel';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { CelExprError, celToText, evalCel } from '../../lib/cel.js';
import { celVars } from './runner.js';
import { CheckMetrics as CheckMetricsSchema, type CheckMetricSpec } from './spec.js';

/**
 * A check's custom Prometheus metrics (`metrics[]` in its spec, as the reference's canary-checker exports them),
 * kept in the app's registry (`app.metrics`, served at GET /metrics) by the process that ran the check.
 *
 * - After each outcome (scheduled run, Run Now, webhook or API push) every metric's `value` is evaluated with CEL over
 *   the same variables `test.expr` and `display.expr` see, then a gauge is set, a counter increased, a histogram
 *   observed (prom-client's default buckets). Label names come from the spec; values are literals or CEL.
 * - One metric name is one family: the first declaration registered wins; a later one with another type or other
 *   label names is skipped and recorded as a problem, never thrown (prom-client would). Names already in the
 *   registry (the console's own) are refused the same way.
 * - Each declaration holds at most one series: a run whose label values differ moves the series. (A name may be
 *   declared several times in one check with other label values: one series each.) Series are
 *   removed when the check is deleted or its metrics change (sweep / observe), and a family no check declares any
 *   more is unregistered, so /metrics does not grow without bound.
 */

type Family = {
  name: string;
  type: CheckMetricSpec['type'];
  /** Sorted; part of the family's identity. */
  labelNames: string[];
  metric: Gauge | Counter | Histogram;
  /** Checks whose spec declares this family (as it is). */
  users: Set<string>;
};

type Held = {
  /** The spec's `metrics` as JSON, as this state was built from it: a different one starts over. */
  signature: string;
  /** Its valid declarations, parsed once. */
  metrics: CheckMetricSpec[];
  /** Declaration (its index in `metrics`) to the series it last wrote. */
  series: Map<number, { name: string; key: string; labels: Record<string, string> }>;
  /** Families this check is counted in. */
  families: Set<string>;
  /** Latest problem per metric name; logged once when it appears. */
  problems: Map<string, string>;
};

/** What observe needs of a check: as the runner has it (RunnableCheck). */
export interface MetricsCheck {
  id: string;
  name: string;
  type: string;
  spec: Record<string, unknown>;
  labels?: Record<string, string> | null;
}

/** What observe needs of an outcome: the result fields CEL sees and the duration (ms). */
export interface MetricsOutcome {
  duration: number;
  data: Record<string, unknown>;
}

export interface CheckMetricsLog {
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface MetricProblem {
  checkId: string;
  metric: string;
  message: string;
}

const MAX_LABEL_VALUE = 1_024;
const HELP = 'Custom metric declared in a canary check spec (metrics[])';

/** Series identity inside a family: label values in label-name order. */
const seriesKey = (labels: Record<string, string>) => JSON.stringify(Object.keys(labels).sort().map((k) => [k, labels[k]]));

/** A CEL value as a metric value: int, uint and double as numbers, a bool as 1 or 0; anything else is refused. */
export function metricNumber(v: CelValue): number | string {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'bigint') n = Number(v);
  else if (isCelUint(v)) n = Number(v.value);
  else if (typeof v === 'boolean') n = v ? 1 : 0;
  else return `value is ${v === null ? 'null' : typeof v === 'string' ? 'a string' : 'not a number'} (${celToText(v).slice(0, 60)})`;
  return Number.isFinite(n) ? n : `value is ${n}`;
}

/** Who writes a series: one declaration of one check. */
const writer = (checkId: string, index: number) => `${checkId}\u0001${index}`;

/** Specs come from one jsonb column (stable key order), so the text of `metrics` tells whether they changed. */
const metricsSignature = (spec: Record<string, unknown>) => JSON.stringify(spec.metrics ?? null);

/** The check's valid metrics declarations, or none (absent or not valid: validation at save reports those). */
function declared(spec: Record<string, unknown>): CheckMetricSpec[] {
  if (spec.metrics === undefined) return [];
  const parsed = CheckMetricsSchema.safeParse(spec.metrics);
  return parsed.success ? parsed.data : [];
}

export class CheckMetrics {
  private readonly families = new Map<string, Family>();
  private readonly held = new Map<string, Held>();
  /** Series key (`name` + labels) to the declarations writing it (`writer`): two may declare identical label values. */
  private readonly owners = new Map<string, Set<string>>();

  constructor(private readonly registry: Registry, private readonly log?: CheckMetricsLog) {}

  /** Updates the check's metrics from one outcome. Never throws: a metric that cannot be exported is recorded. */
  observe(check: MetricsCheck, outcome: MetricsOutcome): void {
    try {
      this.observeUnsafe(check, outcome);
    } catch (err) {
      // a bug here must not lose the result the caller is about to store or report
      this.log?.warn({ err, check: check.id }, 'health: check metrics failed');
    }
  }

  private observeUnsafe(check: MetricsCheck, outcome: MetricsOutcome): void {
    const signature = metricsSignature(check.spec);
    let held = this.held.get(check.id);
    if (held && held.signature !== signature) {
      this.forget(check.id);
      held = undefined;
    }
    if (!held) {
      const metrics = declared(check.spec);
      if (!metrics.length) return;
      held = { signature, metrics, series: new Map(), families: new Set(), problems: new Map() };
      this.held.set(check.id, held);
    }
    const vars = celVars(check, outcome);
    for (const [i, m] of held.metrics.entries()) {
      const problem = (message: string) => this.problem(check.id, held, m.name, message);
      const value = this.evaluate(m, vars, problem);
      if (value === undefined) continue;
      if (m.type === 'counter' && value < 0) {
        problem(`counter value ${value} is negative: not added`);
        continue;
      }
      const labels = this.labelValues(m, vars, problem);
      if (!labels) continue;
      // registered only once there is a value: prom-client shows a family without labels as 0 from the start
      const family = this.claim(check.id, held, m, problem);
      if (!family) continue;
      const key = seriesKey(labels);
      const previous = held.series.get(i);
      if (previous && previous.key !== key) this.release(writer(check.id, i), m.name, previous.key, previous.labels);
      held.series.set(i, { name: m.name, key, labels });
      const ownerKey = `${m.name}\u0000${key}`;
      let owners = this.owners.get(ownerKey);
      if (!owners) this.owners.set(ownerKey, (owners = new Set()));
      owners.add(writer(check.id, i));
      if (family.metric instanceof Gauge) family.metric.set(labels, value);
      else if (family.metric instanceof Counter) family.metric.inc(labels, value);
      else family.metric.observe(labels, value);
      held.problems.delete(m.name);
    }
  }

  /** The family for a declaration: registered on first use, or undefined (recorded) when it conflicts. */
  private claim(checkId: string, held: Held, m: CheckMetricSpec, problem: (message: string) => void): Family | undefined {
    const labelNames = (m.labels ?? []).map((l) => l.name).sort();
    let family = this.families.get(m.name);
    if (family) {
      if (family.type !== m.type || family.labelNames.join(',') !== labelNames.join(',')) {
        const owner = family.users.values().next().value;
        problem(`conflicts with ${m.name} as first declared${owner ? ` by check ${owner}` : ''} `
          + `(${family.type} {${family.labelNames.join(',')}}): this declaration is ${m.type} {${labelNames.join(',')}}`);
        return undefined;
      }
    } else {
      const clash = this.exposedClash(m.name, m.type);
      if (clash) {
        problem(`${clash} is already exported by this console: choose another name`);
        return undefined;
      }
      const opts = { name: m.name, help: HELP, labelNames, registers: [this.registry] };
      const metric = m.type === 'gauge' ? new Gauge(opts) : m.type === 'counter' ? new Counter(opts) : new Histogram(opts);
      family = { name: m.name, type: m.type, labelNames, metric, users: new Set() };
      this.families.set(m.name, family);
    }
    family.users.add(checkId);
    held.families.add(m.name);
    return family;
  }

  /**
   * A name the registry already exposes (another family, or the _bucket/_sum/_count series of a histogram) that the
   * new family would collide with in the exposition text.
   */
  private exposedClash(name: string, type: CheckMetricSpec['type']): string | undefined {
    const taken = (n: string) => this.registry.getSingleMetric(n) !== undefined;
    if (taken(name)) return name;
    if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`].find(taken);
    const base = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
    // prom-client keeps a histogram's series under its base name: its type tells
    if (base && (this.registry.getSingleMetric(base) as { type?: string } | undefined)?.type === 'histogram') return base;
    return undefined;
  }

  private evaluate(m: CheckMetricSpec, vars: Record<string, unknown>, problem: (message: string) => void): number | undefined {
    let v: CelValue;
    try {
      v = evalCel(m.value, vars);
    } catch (err) {
      problem(`value: ${err instanceof CelExprError ? err.message : String(err)}`);
      return undefined;
    }
    const n = metricNumber(v);
    if (typeof n === 'string') {
      problem(`${n}: a number (or bool) is needed`);
      return undefined;
    }
    return n;
  }

  private labelValues(
    m: CheckMetricSpec, vars: Record<string, unknown>, problem: (message: string) => void,
  ): Record<string, string> | undefined {
    const out: Record<string, string> = {};
    for (const l of m.labels ?? []) {
      let v = l.value;
      if (l.valueExpr !== undefined) {
        try {
          v = celToText(evalCel(l.valueExpr, vars));
        } catch (err) {
          problem(`label ${l.name}: ${err instanceof CelExprError ? err.message : String(err)}`);
          return undefined;
        }
      }
      if ((v ?? '').length > MAX_LABEL_VALUE) {
        problem(`label ${l.name}: value longer than ${MAX_LABEL_VALUE} characters`);
        return undefined;
      }
      out[l.name] = v ?? '';
    }
    return out;
  }

  /** Drops a declaration's hold on one series; the series goes when nothing else writes it. */
  private release(by: string, name: string, key: string, labels: Record<string, string>): void {
    const ownerKey = `${name}\u0000${key}`;
    const owners = this.owners.get(ownerKey);
    owners?.delete(by);
    if (owners && owners.size > 0) return;
    this.owners.delete(ownerKey);
    this.families.get(name)?.metric.remove(labels);
  }

  /** Records why a metric was skipped; logs it once, when it appears (a run every 30 s must not flood the log). */
  private problem(checkId: string, held: Held, metric: string, message: string): void {
    if (!held.problems.has(metric)) this.log?.warn({ check: checkId, metric, problem: message }, 'health: a check metric was not exported');
    held.problems.set(metric, message);
  }

  /** Removes everything a check exported and its claims; families left without a declaring check are unregistered. */
  forget(checkId: string): void {
    const held = this.held.get(checkId);
    if (held) {
      for (const [i, s] of held.series) this.release(writer(checkId, i), s.name, s.key, s.labels);
      for (const name of held.families) {
        const family = this.families.get(name);
        if (!family) continue;
        family.users.delete(checkId);
        if (family.users.size === 0) {
          this.registry.removeSingleMetric(name);
          this.families.delete(name);
        }
      }
      this.held.delete(checkId);
    }
  }

  /**
   * Forgets the checks that are gone or whose metrics changed since they were last observed. `lookup` answers, for
   * the ids asked, the spec of each that is still live (a deleted one is absent).
   */
  async sweep(lookup: (ids: string[]) => Promise<Map<string, Record<string, unknown>>>): Promise<number> {
    if (this.held.size === 0) return 0;
    const before = new Map(this.held);
    const live = await lookup([...before.keys()]);
    let forgotten = 0;
    for (const [id, was] of before) {
      // observed again while the lookup ran: that state is newer than what was read
      if (this.held.get(id) !== was) continue;
      const spec = live.get(id);
      if (spec && metricsSignature(spec) === was.signature) continue;
      this.forget(id);
      forgotten++;
    }
    return forgotten;
  }

  /** Problems of the current specs (conflicts, values that are not numbers, failing expressions). */
  problems(checkId?: string): MetricProblem[] {
    const out: MetricProblem[] = [];
    for (const [id, held] of this.held) {
      if (checkId !== undefined && id !== checkId) continue;
      for (const [metric, message] of held.problems) out.push({ checkId: id, metric, message });
    }
    return out;
  }

  /** Checks holding metrics, families registered and series exported (for tests and diagnostics). */
  stats(): { checks: number; families: number; series: number } {
    return { checks: this.held.size, families: this.families.size, series: this.owners.size };
  }
}

export interface SweepOptions {
  /** The specs of the given checks that are still live (queries.ts liveCheckSpecs). */
  lookup: (ids: string[]) => Promise<Map<string, Record<string, unknown>>>;
  /** Change events of every replica (app.events.bus): a change to canaries starts a sweep. */
  subscribe?: (listener: (event: { type: string; relation?: string }) => void) => () => void;
  /** A sweep this often whatever the events say (a missed event, no bus). */
  everyMs?: number;
  log?: CheckMetricsLog;
}

/**
 * Keeps the exported series in step with the stored specs: sweeps after every change to canaries (from any replica,
 * any door: API, CR, /api/db) and periodically. Returns the stop function.
 */
export function sweepCheckMetrics(metrics: CheckMetrics, opts: SweepOptions): () => void {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const run = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = metrics.sweep(opts.lookup)
      .then((n) => {
        if (n) opts.log?.debug({ checks: n }, 'health: check metrics of deleted or changed checks removed');
      })
      .catch((err) => opts.log?.warn({ err }, 'health: check metrics sweep failed'))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          run();
        }
      });
  };
  // a canary write (create, edit, delete, from any door) is what changes or removes checks; `checks` events come with
  // every result (about one a second under load) and would make this a constant full sweep
  const off = opts.subscribe?.((event) => {
    if (event.type === 'resync' || (event.type === 'change' && event.relation === 'canaries')) run();
  });
  const timer = setInterval(run, opts.everyMs ?? 60_000);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
    off?.();
  };
}
