import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';

/**
 * The seams of a topology run (issue 13): build (spec → a tree of BuiltComponent, lookups run through a LookupRunner),
 * save (upsert on topology_id, type, name, parent_id → SavedComponent), then the link steps (selectors, checks,
 * configs, teams). Each part lives in its own file under runner/; this file is the contract between them.
 */

/** A component property as the reference stores it (components.properties[]). */
export interface ComponentProperty {
  name: string;
  label?: string;
  text?: string;
  value?: number;
  unit?: string;
  min?: number;
  max?: number;
  headline?: boolean;
  type?: string;
  color?: string;
  order?: number;
  tooltip?: string;
  icon?: string;
  lastTransition?: string;
  links?: Array<{ label?: string; url: string; type?: string; icon?: string; text?: string; tooltip?: string }>;
  /** Set when the property's own lookup failed: shown as the property's text, never fails the component. */
  error?: string;
}

export type StaticSummary = Partial<Record<'incidents' | 'insights', Record<string, Record<string, number>>>>;

/** One component as a run built it, before it is saved: templates applied, lookups run, defaults filled. */
export interface BuiltComponent {
  name: string;
  type?: string;
  /** Defaults to the name (as the reference). */
  externalId: string;
  namespace?: string;
  icon?: string;
  tooltip?: string;
  text?: string;
  owner?: string;
  lifecycle?: string;
  description?: string;
  labels?: Record<string, string>;
  hidden?: boolean;
  /** Own health/status when the spec or a lookup gave one (else the roll-up decides). */
  health?: string;
  status?: string;
  /** Why the component is unknown/unhealthy, e.g. the error of its failed lookup ("lookup.http[0]: timed out after 30 s"). */
  statusReason?: string;
  statusExpr?: string;
  healthExpr?: string;
  properties?: ComponentProperty[];
  /**
   * The spec's (or a lookup object's) static `summary`, its `incidents` and `insights` only ({type: {severity: n}}):
   * components.static_summary, added to what the roll-up counts (as canary-checker's Component.Summarize).
   */
  summary?: StaticSummary;
  /** components.log_selectors */
  logs?: unknown[];
  /** ResourceSelectors of related components (→ component_relationships). */
  selectors?: unknown[];
  /** `checks`: `{selector}` or `{inline}` entries (→ check_component_relationships / a canary `component/<id>`). */
  checks?: unknown[];
  /** `configs`: config selectors (→ config_component_relationships). */
  configs?: unknown[];
  /** Where this component goes when it is not under its spec parent (reference: parentLookup). */
  parentLookup?: { name?: string; type?: string; namespace?: string; externalID?: string };
  /** The spec's `relationships` (`{ref, type}`), kept for the link steps. */
  relationships?: unknown[];
  /** components.config_id: the spec's `configID` when it is a uuid. */
  configId?: string;
  children: BuiltComponent[];
  /** The spec path that made it, for messages: `spec.components.1.lookup.exec.0`. */
  specPath: string;
}

/** What a lookup gets besides its block. */
export interface LookupContext {
  /** Aborted at the lookup's timeout or at shutdown. */
  signal: AbortSignal;
  timeoutMs: number;
  /** The topology's namespace (connections and valueFrom resolve there). */
  namespace: string;
  topologyId: string;
  db: pg.Pool;
  log: FastifyBaseLogger;
  /**
   * What the lookup is for (default `components`): a component lookup's results must be objects with a name (else
   * LookupError "lookup result 3 has no name"); a `property` lookup may also yield bare values (text that is not JSON
   * is returned as one string, as the reference's `display.expr: '"value"'`). A property's `configLookup` runs through
   * the same runner as `{configLookup: {...}}` (always a property lookup).
   */
  purpose?: 'components' | 'property';
}

/**
 * Runs one `lookup` block (a canary spec: exec, http, postgres, mysql, prometheus, kubernetes, configDB…) and returns
 * what it yields: component-shaped objects (a lookup under `components`), or, for a property lookup, values the
 * builder turns into properties. Throws LookupError with a message fit for `status_reason` (never a secret).
 */
export type LookupRunner = (lookup: Record<string, unknown>, ctx: LookupContext) => Promise<unknown[]>;

export class LookupError extends Error {}

/** A saved component: its row id and what was built for it. */
export interface SavedComponent {
  id: string;
  parentId: string | null;
  built: BuiltComponent;
}

/** Runs after the components are saved, in the run's order: selectors, checks, configs, teams. */
export interface LinkStep {
  name: string;
  run(db: pg.PoolClient | pg.Pool, topologyId: string, saved: SavedComponent[], log: FastifyBaseLogger): Promise<{ linked: number; notes?: string[] }>;
}
