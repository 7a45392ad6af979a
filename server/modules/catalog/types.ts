import type pg from 'pg';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ValueFromResolver } from '../../lib/value-from.js';

/**
 * The contract between the catalog's extractors (one per scraper type: kubernetes, file, http, sql) and the engine
 * that saves what they found (upsert, diff into changes, relationships, insights, deletion). Extractors never write
 * to the database; the engine never knows where an item came from.
 */

/** How an item is found again: its type and one of its external ids (config_items.external_id, case kept). */
export interface ItemRef {
  type: string;
  externalId: string;
}

export type Health = 'healthy' | 'unhealthy' | 'warning' | 'unknown';

/** One configuration item as an extractor sees it, already through the scraper's transforms. */
export interface ScrapedItem {
  /** The primary external id (a Kubernetes uid, a file path, a JSONPath result...). */
  externalId: string;
  /** More external ids that name the same item (the reference keeps them all in external_id[]). */
  aliases?: string[];
  name: string;
  /** e.g. `Kubernetes::Pod`, `File`, a spec's `type` */
  type: string;
  /** config_class: e.g. `Pod`, `Deployment`, the spec's `class` */
  configClass: string;
  /** The item's configuration, as JSON, after masking and volatile fields dropped; diffed against the stored one. */
  config: unknown;
  labels?: Record<string, string>;
  tags?: Record<string, string>;
  health?: Health;
  status?: string;
  ready?: boolean;
  description?: string;
  icon?: string;
  source?: string;
  /** The parent item (Cluster → Namespace → owner for Kubernetes); the engine resolves it to parent_id and path. */
  parent?: ItemRef;
  /** When the source says the item was created / deleted (Kubernetes creationTimestamp, deletionTimestamp). */
  createdAt?: Date;
  deletedAt?: Date;
  deleteReason?: string;
  properties?: unknown[];
  locations?: string[];
  cost?: { perMinute?: number; total1d?: number; total7d?: number; total30d?: number };
}

/** A change the source reports itself (a Kubernetes Event, a `changes` mapping); diffs are the engine's own. */
export interface ScrapedChange {
  item: ItemRef;
  /** Unique per item: a repeat raises `count` instead of adding a row (Kubernetes: the Event's uid). */
  externalChangeId?: string;
  changeType: string;
  /** One of the spec's change severities: critical, high, medium, low, info. */
  severity?: string;
  source?: string;
  summary?: string;
  details?: unknown;
  createdAt?: Date;
  firstObserved?: Date;
  count?: number;
  externalCreatedBy?: string;
  /** `changes.mapping` actions: delete the item, or drop the change. */
  action?: 'delete' | 'ignore';
}

/** An insight (config_analysis row) found by an analyzer; one open row per item and analyzer. */
export interface ScrapedAnalysis {
  item: ItemRef;
  analyzer: string;
  /** cost, availability, performance, security, integration, compliance, technical_debt, reliability, recommendation, other */
  analysisType: string;
  severity: string;
  summary?: string;
  message?: string;
  analysis?: unknown;
  source?: string;
}

/** A relationship between two items: `hard` (ownership), `soft` (selector, reference) or a named relation. */
export interface ScrapedRelationship {
  from: ItemRef;
  to: ItemRef;
  relation: string;
}

export interface ScrapeResult {
  items: ScrapedItem[];
  changes: ScrapedChange[];
  analysis: ScrapedAnalysis[];
  relationships: ScrapedRelationship[];
  /** One message per bad item or source error ("items[3]: $.foo: ..."); the rest of the result is still saved. */
  errors: string[];
  /**
   * True when the extractor saw its whole source without error: the engine may then mark items of this scraper that
   * were not returned as deleted (`delete_reason` 'not found'). A failed or partial run deletes nothing.
   */
  complete: boolean;
  /** Types whose analyzers ran over every item: open insights of those items not reported again are resolved. */
  analyzedTypes?: string[];
  /**
   * With `complete`: the source lists everything it has (a Kubernetes list, a directory), so an item it no longer
   * lists was observed gone and is deleted at once. Without it, such items are deleted once they have not been seen
   * for the spec's `retention.staleItemAge` (24 h).
   */
  deleteMissing?: boolean;
}

/** What an extractor gets for one run of one block of a scraper's spec (e.g. `spec.file[0]`). */
export interface ScrapeContext {
  db: pg.Pool;
  scraperId: string;
  /** The scraper's namespace, for `connection://` and valueFrom lookups. */
  namespace: string;
  /** Aborted when the run's `timeout` passes or the console stops. */
  signal: AbortSignal;
  /** The console's cluster, when it has one (kubernetes scraper without its own kubeconfig). */
  kube?: KubeConfig;
  /**
   * Reads EnvVar `valueFrom` (Secrets, ConfigMaps) in the scraper's namespace, for http `env`/`headers`, sql `auth`
   * and `connection://` credentials (app.kube.valueFrom); without one a valueFrom is an error of the run.
   */
  valueFrom?: ValueFromResolver;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; debug(obj: object, msg: string): void };
}

/** One scraper type: the spec key, and how a block of that key is scraped. Registered one line each in scrapers.ts. */
export interface ScraperType {
  key: string;
  scrape(ctx: ScrapeContext, block: Record<string, unknown>): Promise<ScrapeResult>;
}

export const emptyResult = (): ScrapeResult => ({ items: [], changes: [], analysis: [], relationships: [], errors: [], complete: true });

/** What one save did, per config type: the job_history details' `scrape_summary.config_types`. */
export interface ScrapeSummary {
  config_types: Record<string, { added: number; updated: number; unchanged: number; changes: number; deleted?: number }>;
}
