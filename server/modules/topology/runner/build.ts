import { specPathText } from '../../catalog/spec.js';
import { groupByOf, groupValues, injectConfigs, injectTag, MAX_GROUPS } from './group-by.js';
import { applyProperties, failedProperty, lookupProperties, propertyMap, toProperty, type PropertyOutcome } from './properties.js';
import { reparent } from './reparent.js';
import { renderDeep, renderText } from './templates.js';
import { LookupError, type BuiltComponent, type ComponentProperty, type LookupContext, type LookupRunner, type StaticSummary } from './types.js';

/**
 * The builder (issue 13 "Runs"): a Topology spec → one tree of BuiltComponent under a root named after the topology.
 * Static components are copied, `lookup` blocks run through the injected LookupRunner (each with its own timeout),
 * `forEach` is applied to every component a lookup yields, property lookups become properties, and `parentLookup`
 * moves components (reparent.ts breaks cycles). A failed lookup fails its component only (unknown, the error as
 * status_reason, static children kept); every failure is also a line of `errors` for the job history.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const list = (v: unknown): unknown[] | undefined => (Array.isArray(v) && v.length ? v : undefined);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A static `summary` (the spec's, or a lookup object's: duty types.Summary) as the roll-up adds it: its `incidents` and
 * `insights` maps ({type: {severity: n}}), counts that are non-negative integers; the rest (healthy, unhealthy,
 * warning, info, checks) is always computed, as canary-checker's Component.Summarize. Undefined when nothing is left.
 */
export function staticSummary(v: unknown): StaticSummary | undefined {
  if (!isObj(v)) return undefined;
  const out: StaticSummary = {};
  for (const kind of ['incidents', 'insights'] as const) {
    const byType = v[kind];
    if (!isObj(byType)) continue;
    const kept: Record<string, Record<string, number>> = {};
    for (const [type, bySeverity] of Object.entries(byType)) {
      if (!isObj(bySeverity)) continue;
      const counts = Object.entries(bySeverity).filter(([, n]) => Number.isInteger(n) && (n as number) > 0 && (n as number) < 1e9);
      if (counts.length) kept[type] = Object.fromEntries(counts) as Record<string, number>;
    }
    if (Object.keys(kept).length) out[kind] = kept;
  }
  return Object.keys(out).length ? out : undefined;
}

/** What a lookup waits for when the spec does not say: the reference's check timeout. */
export const DEFAULT_LOOKUP_TIMEOUT_MS = 30_000;

export interface TopologyRow {
  id: string;
  name: string;
  namespace: string;
  labels: Record<string, string> | null;
  spec: Obj;
}

export interface BuildDeps {
  lookup: LookupRunner;
  /** The context every lookup gets, less its signal and timeout (set per lookup). */
  context: Omit<LookupContext, 'signal' | 'timeoutMs'>;
  /** Aborted when the run is stopped (shutdown). */
  signal?: AbortSignal;
  lookupTimeoutMs?: number;
}

export interface BuildResult {
  root: BuiltComponent;
  /** Failed lookups, cycles, parentLookups without a match: `spec.components.1: …`. */
  errors: string[];
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1_000);

/** A component's fields as templates and CEL read them: `.name`, `.self.name`, `.properties.x`. */
export function componentEnv(c: Partial<BuiltComponent>): Record<string, unknown> {
  const self = {
    name: c.name, type: c.type, namespace: c.namespace, icon: c.icon, tooltip: c.tooltip, text: c.text, owner: c.owner,
    lifecycle: c.lifecycle, labels: c.labels ?? {}, id: c.externalId, externalID: c.externalId, external_id: c.externalId,
    health: c.health, status: c.status, description: c.description,
  };
  return { ...self, self, properties: propertyMap(c.properties) };
}

class Builder {
  readonly errors: string[] = [];
  constructor(private readonly deps: BuildDeps, private readonly namespace: string) {}

  /** Runs one lookup block with its timeout; throws LookupError with a message fit for status_reason. */
  async lookup(block: Obj, purpose: 'components' | 'property' = 'components'): Promise<unknown[]> {
    const timeoutMs = this.deps.lookupTimeoutMs ?? DEFAULT_LOOKUP_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = this.deps.signal ? AbortSignal.any([this.deps.signal, timeout]) : timeout;
    let timer: NodeJS.Timeout | undefined;
    // a lookup that ignores its signal still ends for the run at its timeout
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LookupError(`timed out after ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    });
    try {
      const run = this.deps.lookup(block, { ...this.deps.context, signal, timeoutMs, purpose });
      run.catch(() => undefined);
      return await Promise.race([run, late]);
    } catch (err) {
      if (timeout.aborted) throw new LookupError(`timed out after ${Math.round(timeoutMs / 1000)} s`);
      throw err instanceof LookupError ? err : new LookupError(message(err));
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A spec's properties, each looked up once and merged into `targets` as the reference's mergeComponentProperties:
   * one property per name (later fields fill/override), results naming a component only on that component.
   */
  async properties(specs: unknown, at: string, targets: BuiltComponent[]): Promise<void> {
    if (!Array.isArray(specs)) return;
    for (const [i, p] of specs.entries()) {
      if (!isObj(p)) continue;
      const block = isObj(p.lookup) ? p.lookup : isObj(p.configLookup) ? { configLookup: p.configLookup } : null;
      let outcome: PropertyOutcome;
      if (!block) {
        const prop = toProperty(p);
        outcome = { properties: prop ? [prop] : [], byComponent: [] };
      } else {
        try {
          outcome = lookupProperties(p, await this.lookup(block, 'property'));
        } catch (err) {
          const e = message(err);
          this.errors.push(`${at}.properties.${i}: ${e}`);
          outcome = { properties: [failedProperty(p, e)], byComponent: [] };
        }
      }
      applyProperties(targets, outcome);
    }
  }

  /** The fields a spec entry (or a lookup's object) gives a component, children not yet built. */
  fields(c: Obj, at: string, env?: Record<string, unknown>): BuiltComponent {
    const name = str(c.name) ?? '';
    const labels = isObj(c.labels)
      ? Object.fromEntries(Object.entries(c.labels).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
      : undefined;
    const b: BuiltComponent = {
      name, type: str(c.type), namespace: str(c.namespace) ?? this.namespace, icon: str(c.icon), tooltip: str(c.tooltip),
      text: str(c.text), owner: str(c.owner), lifecycle: str(c.lifecycle), description: str(c.description), labels,
      hidden: c.hidden === true ? true : undefined, health: str(c.health), status: str(c.status),
      statusReason: str(c.statusReason) ?? str(c.status_reason), statusExpr: str(c.statusExpr), healthExpr: str(c.healthExpr),
      logs: list(c.logs), selectors: list(c.selectors), checks: list(c.checks), configs: list(c.configs),
      relationships: list(c.relationships), externalId: name, children: [], specPath: at, summary: staticSummary(c.summary),
    };
    if (isObj(c.parentLookup) && Object.values(c.parentLookup).some((v) => typeof v === 'string' && v)) {
      const pl = c.parentLookup;
      b.parentLookup = { name: str(pl.name), type: str(pl.type), namespace: str(pl.namespace), externalID: str(pl.externalID) };
    }
    const configId = str(c.configID) ?? str(c.config_id);
    if (configId && UUID.test(configId)) b.configId = configId.toLowerCase();
    const template = typeof c.id === 'string' ? c.id : isObj(c.id) ? str(c.id.template) : undefined;
    const id = str(c.externalID) ?? str(c.external_id) ?? (template ? renderText(template, env ?? componentEnv(b)) : undefined);
    b.externalId = id || name;
    return b;
  }

  /** One spec component → the components it stands for (one, or a lookup's results when it has no name). */
  async component(c: Obj, at: string): Promise<BuiltComponent[]> {
    const self = this.fields(c, at);
    self.properties = [];
    for (const [i, child] of (Array.isArray(c.components) ? c.components : []).entries()) {
      if (isObj(child)) self.children.push(...await this.component(child, `${at}.components.${i}`));
    }
    if (!isObj(c.lookup)) {
      await this.properties(c.properties, at, [self]);
      // without a lookup, forEach applies to the component itself (the reference's list of one)
      if (isObj(c.forEach)) await this.forEach(self, c.forEach, at);
      return [self];
    }
    let found: BuiltComponent[] = [];
    try {
      const results = await this.lookup(c.lookup);
      found = await this.fromLookup(results, c, `${at}.lookup`);
    } catch (err) {
      const e = message(err);
      this.errors.push(`${at}.lookup: ${e}`);
      self.health = 'unknown';
      self.statusReason = e;
    }
    // the spec's properties are the looked-up components' (the reference has no group); the group's when none came
    await this.properties(c.properties, at, found.length ? found : [self]);
    if (!self.name) {
      // no group to hang them on: the results (and any static children) sit where the spec entry is
      return [...found, ...self.children];
    }
    self.children.push(...found);
    return [self];
  }

  /** A lookup's objects → components, with the spec's forEach applied to each and its icon/lifecycle as defaults. */
  async fromLookup(results: unknown[], spec: Obj, at: string): Promise<BuiltComponent[]> {
    const flat = results.length === 1 && Array.isArray(results[0]) ? results[0] as unknown[] : results;
    const out: BuiltComponent[] = [];
    for (const [i, r] of flat.entries()) {
      if (!isObj(r) || !str(r.name)) {
        this.errors.push(`${at}: lookup result ${i} has no name`);
        continue;
      }
      const b = await this.fromObject(r, `${at}.${i}`);
      b.icon ??= str(spec.icon);
      b.lifecycle ??= str(spec.lifecycle);
      if (isObj(spec.forEach)) await this.forEach(b, spec.forEach, `${at}.${i}`);
      out.push(b);
    }
    return out;
  }

  private async fromObject(r: Obj, at: string): Promise<BuiltComponent> {
    const b = this.fields({ ...r, id: undefined, externalID: r.externalID ?? r.external_id ?? (typeof r.id === 'string' ? r.id : undefined) }, at);
    b.properties = (Array.isArray(r.properties) ? r.properties : []).map(toProperty).filter((p): p is ComponentProperty => !!p);
    for (const [i, child] of (Array.isArray(r.components) ? r.components : []).entries()) {
      if (isObj(child) && str(child.name)) b.children.push(await this.fromObject(child, `${at}.components.${i}`));
    }
    return b;
  }

  /** forEach: the block rendered with the component's fields, its parts added to the component. */
  async forEach(b: BuiltComponent, fe: Obj, at: string): Promise<void> {
    const block = renderDeep(fe, componentEnv(b));
    const where = `${at}.forEach`;
    for (const [i, child] of (Array.isArray(block.components) ? block.components : []).entries()) {
      if (isObj(child)) b.children.push(...await this.component(child, `${where}.components.${i}`));
    }
    // per component: a lookup naming other components leaves this one as it is
    await this.properties(block.properties, where, [b]);
    for (const key of ['configs', 'checks', 'selectors', 'relationships'] as const) {
      const more = list(block[key]);
      if (more) b[key] = [...(b[key] ?? []), ...more];
    }
  }
}

/** The groupBy tag and its values, or undefined to build ungrouped (no groupBy, a bad query, no values: a line each). */
async function groupsOf(spec: Obj, deps: BuildDeps, errors: string[]): Promise<{ tag: string; values: string[] } | undefined> {
  const g = groupByOf(spec);
  if (!g) return undefined;
  let values: string[];
  try {
    values = await groupValues(deps.context.db, g);
  } catch (err) {
    errors.push(`spec.groupBy: ${message(err)}; built ungrouped`);
    return undefined;
  }
  if (!values.length) {
    errors.push(`spec.groupBy: no values found for tag '${g.tag}'; built ungrouped`);
    return undefined;
  }
  if (values.length > MAX_GROUPS) errors.push(`spec.groupBy: more than ${MAX_GROUPS} values of tag '${g.tag}'; the first ${MAX_GROUPS} are built`);
  return { tag: g.tag, values: values.slice(0, MAX_GROUPS) };
}

/** Builds a topology's tree (never throws for a lookup: the failure is on the component and in `errors`). */
export async function buildTopology(topology: TopologyRow, deps: BuildDeps): Promise<BuildResult> {
  const spec = topology.spec ?? {};
  const builder = new Builder(deps, topology.namespace);
  const root = builder.fields({
    name: str(spec.text) ?? topology.name, type: spec.type, icon: spec.icon, tooltip: spec.tooltip, text: spec.text,
    owner: spec.owner, labels: topology.labels ?? undefined, id: spec.id, healthExpr: spec.healthExpr,
    statusExpr: spec.statusExpr, configs: spec.configs,
  }, 'spec');
  root.properties = [];
  await builder.properties(spec.properties, 'spec', [root]);
  const groups = await groupsOf(spec, deps, builder.errors);
  if (groups) {
    // groupBy: the components once per tag value, each set under a group named by the value (group-by.ts)
    for (const [gi, value] of groups.values.entries()) {
      if (deps.signal?.aborted) break;
      const group = builder.fields({
        name: value, type: spec.type, icon: spec.icon, labels: { [groups.tag]: value },
        configs: injectConfigs(spec.configs, groups.tag, value),
      }, `spec.groupBy.${gi}`);
      group.properties = [];
      for (const [i, c] of injectTag(spec.components, groups.tag, value).entries()) {
        if (isObj(c)) group.children.push(...await builder.component(c, specPathText(['components', i])));
      }
      root.children.push(group);
    }
  }
  for (const [i, c] of (groups ? [] : Array.isArray(spec.components) ? spec.components : []).entries()) {
    if (deps.signal?.aborted) break;
    if (isObj(c)) root.children.push(...await builder.component(c, specPathText(['components', i])));
  }
  builder.errors.push(...reparent(root));
  return { root, errors: builder.errors };
}
