import type { z } from 'zod';
import {
  PushCanary, PushCheck, PushCheckStatus, PushCheckUnlogged, PushComponent, PushConfigAnalysis, PushConfigChange,
  PushConfigItem, PushConfigScraper, PushJobHistory, PushTopology, PushConfigRelationship, PushComponentRelationship,
  PushConfigComponentRelationship, PushCheckConfigRelationship, PushCheckComponentRelationship, PushConfigItemLastScrapedTime,
  type PushKey,
} from '../../contracts/upstream.js';

/** The SQL types pushed columns are read as (jsonb_to_recordset column definitions). */
export type SqlType = 'uuid' | 'text' | 'jsonb' | 'timestamptz' | 'boolean' | 'integer' | 'numeric' | 'text[]';

/** A table's parent: the column of this table that names a row (by id) of the parent key's table. */
export interface PushParent {
  column: string;
  key: PushKey;
}

/**
 * How one PushData key is stored. Adding a table an agent may push is one entry in PUSH_TABLES (the catalog and
 * topology issues extend it with their tables).
 */
export interface PushTable {
  key: PushKey;
  /** The table (a constant here, never request input). */
  table: string;
  /** The row contract (server/contracts/upstream.ts); keys it does not list are ignored. */
  row: z.ZodType;
  /** Stored columns and their SQL types; `agent_id` is never among them (forced for owned tables). */
  columns: Readonly<Record<string, SqlType>>;
  /** The upsert key (the reference's primary key). */
  conflict: readonly string[];
  /** The table has `agent_id`: it is forced to the pushing agent, and a row of another agent is refused (409). */
  owned: boolean;
  /** Rows this table's rows point at; they must be in the same batch or already the agent's (else 422 / 409). */
  parents: readonly PushParent[];
  /** The agent's properties are merged into the row's `labels` (the row's own keys win). */
  labels?: true;
  /** SQL for a missing value of a NOT NULL column with a default. */
  fallback?: Readonly<Record<string, string>>;
  /** Extra condition for replacing an existing row (t = the stored row, EXCLUDED = the pushed one). */
  replaceWhen?: string;
  /**
   * Stored by the health module's ingest instead of a plain upsert (results: raw row, latest state, rollups, check
   * status; a replayed result is ignored).
   */
  ingest?: 'check_statuses';
}

const STAMPS = { created_at: 'now()', updated_at: 'now()' } as const;

/** Parents first: a batch is stored in this order and deleted in the reverse. */
export const PUSH_TABLES: readonly PushTable[] = [
  {
    key: 'canaries', table: 'canaries', row: PushCanary, owned: true, conflict: ['id'], parents: [], labels: true,
    columns: {
      id: 'uuid', name: 'text', namespace: 'text', labels: 'jsonb', annotations: 'jsonb', spec: 'jsonb', source: 'text',
      created_at: 'timestamptz', updated_at: 'timestamptz', deleted_at: 'timestamptz',
    },
    fallback: { namespace: `'default'`, ...STAMPS },
  },
  {
    key: 'checks', table: 'checks', row: PushCheck, owned: true, conflict: ['id'], parents: [{ column: 'canary_id', key: 'canaries' }],
    labels: true,
    columns: {
      id: 'uuid', canary_id: 'uuid', type: 'text', name: 'text', namespace: 'text', description: 'text', icon: 'text',
      spec: 'jsonb', labels: 'jsonb', owner: 'text', severity: 'text', category: 'text', transformed: 'boolean',
      last_runtime: 'timestamptz', last_transition_time: 'timestamptz', next_runtime: 'timestamptz',
      silenced_at: 'timestamptz', status: 'text', created_at: 'timestamptz', updated_at: 'timestamptz', deleted_at: 'timestamptz',
    },
    fallback: STAMPS,
  },
  {
    key: 'checks_unlogged', table: 'checks_unlogged', row: PushCheckUnlogged, owned: false, conflict: ['check_id'],
    parents: [{ column: 'check_id', key: 'checks' }, { column: 'canary_id', key: 'canaries' }],
    columns: {
      check_id: 'uuid', canary_id: 'uuid', status: 'text', last_runtime: 'timestamptz', next_runtime: 'timestamptz',
      last_duration: 'integer', last_message: 'text', last_error: 'text', created_at: 'timestamptz', updated_at: 'timestamptz',
    },
    fallback: STAMPS,
    // an older latest state (a replay, or statuses pushed after it) never replaces a newer one
    replaceWhen: 't.last_runtime IS NULL OR EXCLUDED.last_runtime >= t.last_runtime',
  },
  {
    key: 'check_statuses', table: 'check_statuses', row: PushCheckStatus, owned: false, conflict: ['check_id', 'time'],
    parents: [{ column: 'check_id', key: 'checks' }], ingest: 'check_statuses',
    columns: {
      check_id: 'uuid', time: 'timestamptz', duration: 'integer', status: 'boolean', invalid: 'boolean', message: 'text',
      error: 'text', details: 'jsonb', severity: 'text', created_at: 'timestamptz',
    },
  },
  {
    key: 'job_history', table: 'job_history', row: PushJobHistory, owned: true, conflict: ['id'], parents: [],
    columns: {
      id: 'uuid', name: 'text', success_count: 'integer', error_count: 'integer', details: 'jsonb', hostname: 'text',
      duration_millis: 'integer', resource_type: 'text', resource_id: 'text', status: 'text', time_start: 'timestamptz',
      time_end: 'timestamptz', created_at: 'timestamptz',
    },
    fallback: { created_at: 'now()' },
  },
  // catalog and topology (issues 12, 13): an agent's scraped items and its topologies' components
  {
    key: 'topologies', table: 'topologies', row: PushTopology, owned: true, conflict: ['id'], parents: [], labels: true,
    columns: {
      id: 'uuid', name: 'text', namespace: 'text', labels: 'jsonb', source: 'text', spec: 'jsonb', schedule: 'text',
      created_at: 'timestamptz', updated_at: 'timestamptz', deleted_at: 'timestamptz',
    },
    fallback: { namespace: `'default'`, source: `'UI'`, ...STAMPS },
  },
  {
    key: 'config_scrapers', table: 'config_scrapers', row: PushConfigScraper, owned: true, conflict: ['id'], parents: [],
    labels: true,
    columns: {
      id: 'uuid', name: 'text', namespace: 'text', description: 'text', labels: 'jsonb', spec: 'jsonb', source: 'text',
      created_at: 'timestamptz', updated_at: 'timestamptz', deleted_at: 'timestamptz',
    },
    fallback: { source: `'UI'`, ...STAMPS },
  },
  {
    key: 'config_items', table: 'config_items', row: PushConfigItem, owned: true, conflict: ['id'], labels: true,
    parents: [{ column: 'scraper_id', key: 'config_scrapers' }, { column: 'parent_id', key: 'config_items' }],
    columns: {
      id: 'uuid', scraper_id: 'uuid', config_class: 'text', status: 'text', health: 'text', ready: 'boolean',
      external_id: 'text[]', type: 'text', name: 'text', description: 'text', config: 'jsonb', source: 'text',
      labels: 'jsonb', tags: 'jsonb', properties: 'jsonb', parent_id: 'uuid', path: 'text', icon: 'text',
      cost_per_minute: 'numeric', cost_total_1d: 'numeric', cost_total_7d: 'numeric', cost_total_30d: 'numeric',
      created_at: 'timestamptz', updated_at: 'timestamptz', deleted_at: 'timestamptz', delete_reason: 'text',
    },
    fallback: STAMPS,
  },
  {
    key: 'config_changes', table: 'config_changes', row: PushConfigChange, owned: false, conflict: ['id'],
    parents: [{ column: 'config_id', key: 'config_items' }],
    columns: {
      id: 'uuid', config_id: 'uuid', external_change_id: 'text', external_created_by: 'text', change_type: 'text',
      severity: 'text', source: 'text', summary: 'text', patches: 'jsonb', diff: 'text', details: 'jsonb',
      created_at: 'timestamptz', count: 'integer', fingerprint: 'text', first_observed: 'timestamptz',
    },
    fallback: { created_at: 'now()', count: '1', first_observed: 'now()' },
    // a change stays with its item: a push never moves another item's change under its own
    replaceWhen: 't.config_id = EXCLUDED.config_id',
  },
  {
    key: 'config_analysis', table: 'config_analysis', row: PushConfigAnalysis, owned: false, conflict: ['id'],
    parents: [{ column: 'config_id', key: 'config_items' }, { column: 'scraper_id', key: 'config_scrapers' }],
    columns: {
      id: 'uuid', config_id: 'uuid', scraper_id: 'uuid', source: 'text', analyzer: 'text', analysis_type: 'text',
      severity: 'text', summary: 'text', status: 'text', message: 'text', analysis: 'jsonb', properties: 'jsonb',
      first_observed: 'timestamptz', last_observed: 'timestamptz',
    },
    fallback: { first_observed: 'now()', last_observed: 'now()' },
    replaceWhen: 't.config_id = EXCLUDED.config_id',
  },
  {
    key: 'components', table: 'components', row: PushComponent, owned: true, conflict: ['id'], labels: true,
    parents: [
      { column: 'topology_id', key: 'topologies' }, { column: 'parent_id', key: 'components' },
      { column: 'config_id', key: 'config_items' },
    ],
    columns: {
      id: 'uuid', topology_id: 'uuid', external_id: 'text', parent_id: 'uuid', config_id: 'uuid', name: 'text',
      text: 'text', topology_type: 'text', namespace: 'text', labels: 'jsonb', hidden: 'boolean', silenced: 'boolean',
      status: 'text', status_expr: 'text', health_expr: 'text', health: 'text', description: 'text', lifecycle: 'text',
      tooltip: 'text', status_reason: 'text', schedule: 'text', icon: 'text', type: 'text', owner: 'text',
      selectors: 'jsonb', log_selectors: 'jsonb', component_checks: 'jsonb', configs: 'jsonb', properties: 'jsonb',
      path: 'text', summary: 'jsonb', is_leaf: 'boolean', cost_per_minute: 'numeric', cost_total_1d: 'numeric',
      cost_total_7d: 'numeric', cost_total_30d: 'numeric', created_at: 'timestamptz', updated_at: 'timestamptz',
      deleted_at: 'timestamptz',
    },
    // the reference's external_id is required; a component without one is known by its name
    fallback: { external_id: 'r.name', hidden: 'false', silenced: 'false', status: `'unknown'`, ...STAMPS },
  },
  // relationships and last scrape times: no agent_id of their own; every row they point at must be the agent's (in
  // the batch or stored), so an agent can neither link to nor unlink another agent's or the console's rows. Upserted
  // by the reference's keys; a row pushed with deleted_at is soft-deleted as the reference stores it.
  {
    key: 'config_relationships', table: 'config_relationships', row: PushConfigRelationship, owned: false,
    conflict: ['related_id', 'config_id', 'relation', 'scraper_id'],
    parents: [
      { column: 'config_id', key: 'config_items' }, { column: 'related_id', key: 'config_items' },
      { column: 'scraper_id', key: 'config_scrapers' },
    ],
    columns: {
      config_id: 'uuid', related_id: 'uuid', relation: 'text', scraper_id: 'uuid', selector_id: 'text',
      created_at: 'timestamptz', updated_at: 'timestamptz', deleted_at: 'timestamptz',
    },
    fallback: STAMPS,
  },
  {
    key: 'component_relationships', table: 'component_relationships', row: PushComponentRelationship, owned: false,
    conflict: ['component_id', 'relationship_id', 'selector_id'],
    parents: [{ column: 'component_id', key: 'components' }, { column: 'relationship_id', key: 'components' }],
    columns: {
      component_id: 'uuid', relationship_id: 'uuid', selector_id: 'text', relationship_path: 'text',
      created_at: 'timestamptz', updated_at: 'timestamptz', deleted_at: 'timestamptz',
    },
    fallback: STAMPS,
  },
  {
    key: 'config_component_relationships', table: 'config_component_relationships', row: PushConfigComponentRelationship,
    owned: false, conflict: ['component_id', 'config_id'],
    parents: [{ column: 'component_id', key: 'components' }, { column: 'config_id', key: 'config_items' }],
    columns: {
      component_id: 'uuid', config_id: 'uuid', selector_id: 'text', created_at: 'timestamptz', updated_at: 'timestamptz',
      deleted_at: 'timestamptz',
    },
    fallback: STAMPS,
  },
  {
    key: 'check_config_relationships', table: 'check_config_relationships', row: PushCheckConfigRelationship, owned: false,
    conflict: ['config_id', 'check_id', 'canary_id', 'selector_id'],
    parents: [
      { column: 'config_id', key: 'config_items' }, { column: 'check_id', key: 'checks' }, { column: 'canary_id', key: 'canaries' },
    ],
    columns: {
      config_id: 'uuid', check_id: 'uuid', canary_id: 'uuid', selector_id: 'text', created_at: 'timestamptz',
      updated_at: 'timestamptz', deleted_at: 'timestamptz',
    },
    fallback: STAMPS,
  },
  {
    key: 'check_component_relationships', table: 'check_component_relationships', row: PushCheckComponentRelationship,
    owned: false, conflict: ['component_id', 'check_id', 'canary_id', 'selector_id'],
    parents: [
      { column: 'component_id', key: 'components' }, { column: 'check_id', key: 'checks' }, { column: 'canary_id', key: 'canaries' },
    ],
    columns: {
      component_id: 'uuid', check_id: 'uuid', canary_id: 'uuid', selector_id: 'text', created_at: 'timestamptz',
      updated_at: 'timestamptz', deleted_at: 'timestamptz',
    },
    fallback: STAMPS,
  },
  {
    key: 'config_items_last_scraped_time', table: 'config_items_last_scraped_time', row: PushConfigItemLastScrapedTime,
    owned: false, conflict: ['config_id'], parents: [{ column: 'config_id', key: 'config_items' }],
    columns: { config_id: 'uuid', last_scraped_time: 'timestamptz', created_at: 'timestamptz', updated_at: 'timestamptz' },
    fallback: { last_scraped_time: 'now()', ...STAMPS },
    // a replayed (older) scrape time never moves a newer one back
    replaceWhen: 'EXCLUDED.last_scraped_time >= t.last_scraped_time',
  },
];

export const PUSH_TABLE_BY_KEY = new Map(PUSH_TABLES.map((t) => [t.key, t]));
