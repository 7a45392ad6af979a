import type { Action, Feature, Resource } from '../../contracts/rbac.js';

export type WriteOp = 'insert' | 'update' | 'delete' | 'upsert';

/** How /api/db exposes one table or view. Adding a relation to the API is one entry in RELATIONS. */
export interface RelationSpec {
  /** RBAC resource: `read` for GET/HEAD and for being embedded, `write` for POST/PATCH/DELETE. */
  resource: Resource;
  /** Columns that do not exist as far as the API is concerned: never selected (not even by `*`), filtered, ordered or written. */
  hidden?: readonly string[];
  /**
   * Columns shown, filtered and ordered only through a SQL function of their value (column -> function, defined by a
   * migration): a secret reads `***`. Filters and order apply to what is shown, so they never reveal the value.
   */
  masked?: Readonly<Record<string, string>>;
  /**
   * For views: the table whose foreign keys the view's same-named columns inherit, so the view embeds and can be
   * embedded like that table (PostgREST derives this from the view definition; we declare it).
   */
  base?: string;
  /**
   * Rows belong to the person named in this column: a caller without `write` on the resource reads their own rows
   * only (any signed-in person, without `read` on it), one with `write` (admins) every row (sign-in activity, 0090).
   */
  readOwner?: string;
  /** A page's feature flag that gates the whole relation: while it is off, reads and writes are refused with 403. */
  feature?: Feature;
  /** Allowed writes; absent means read-only. */
  write?: {
    ops: readonly WriteOp[];
    /** Maintained by the database: refused in any body. */
    readOnly?: readonly string[];
    /** Settable when a row is created, refused by PATCH. */
    immutable?: readonly string[];
    /**
     * Writes go through the module that owns the rows (registered in `app.relationWriters`, ./writers.ts), not SQL:
     * the same validation and side effects as the module's own routes. PATCH {deleted_at} is its delete.
     */
    writer?: true;
    /**
     * Triggers set created_by to the acting person whatever the body says (0030_incidents.sql), so the generic
     * created_by rule (./write-body.ts: stamp when left out, another person for admins only) stays out of the way.
     */
    creatorByTrigger?: true;
    /** The settings page's feature flag: while it is off, writes are refused with 403 (reads go on; issue 11). */
    feature?: Feature;
    /**
     * Rows belong to the person named in this column: every signed-in person writes (no write permission on the
     * resource is needed), created_by is stamped as on any table, and an update or delete that would touch another
     * person's row is refused with 403 unless the caller is an admin (./write-service.ts; saved views, 0053).
     */
    owner?: 'created_by';
  };
}

/** A function callable at /api/db/rpc/<name>, with the permission it needs. */
export interface FunctionSpec {
  resource: Resource;
  action: Action;
}

const ALL_WRITES: readonly WriteOp[] = ['insert', 'update', 'delete', 'upsert'];
const STAMPS = ['created_at', 'updated_at'];
// every components column but hidden and parent_id, the two a person may change (0060_topology.sql)
const COMPONENT_FIXED = [
  'id', 'agent_id', 'topology_id', 'external_id', 'config_id', 'name', 'text', 'topology_type', 'namespace', 'labels',
  'silenced', 'is_pushed', 'status', 'status_expr', 'health_expr', 'health', 'description', 'lifecycle', 'tooltip',
  'status_reason', 'schedule', 'icon', 'type', 'owner', 'selectors', 'log_selectors', 'component_checks', 'configs',
  'properties', 'path', 'summary', 'is_leaf', 'cost_per_minute', 'cost_total_1d', 'cost_total_7d', 'cost_total_30d',
  'created_by', 'created_at', 'updated_at', 'deleted_at', 'properties_values',
];
const NOTIFICATION_MASKS = { custom_services: 'notification_services_masked', fallback_custom_services: 'notification_services_masked' };
const CONNECTION_MASKS = {
  url: 'connection_url_masked', username: 'connection_secret_masked', password: 'connection_secret_masked',
  certificate: 'connection_secret_masked', properties: 'connection_properties_masked',
};

export const RELATIONS: Readonly<Record<string, RelationSpec>> = {
  // Removing a person goes through DELETE /api/people/:id, which protects the last admin and revokes sessions; through
  // here an editor could otherwise delete or soft-delete an admin (and with the row, its role bindings).
  people: {
    resource: 'database',
    write: { ops: ['insert', 'update'], readOnly: [...STAMPS, 'deleted_at', 'last_login', 'type'], immutable: ['id'] },
  },
  identities: { resource: 'identities' },
  // Sign-in activity and sessions (issue 17): your own rows; admins (write on identities) everyone's.
  auth_events: { resource: 'identities', readOwner: 'person_id' },
  sessions: { resource: 'identities', readOwner: 'person_id', hidden: ['token_hash'] },
  people_roles: { resource: 'rbac', base: 'people' },
  teams: { resource: 'database', write: { ops: ALL_WRITES, readOnly: STAMPS, immutable: ['id'], feature: 'settings.teams' } },
  team_members: { resource: 'database', write: { ops: ALL_WRITES, feature: 'settings.teams' } },
  properties: { resource: 'feature_flags', write: { ops: ALL_WRITES, readOnly: STAMPS } },
  access_tokens: { resource: 'kratos', hidden: ['value'], write: { ops: ['delete'] } },
  invites: { resource: 'auth', hidden: ['token_hash'], write: { ops: ['delete'] } },
  // Agents (issue 16): made by POST /api/agent/generate only; PATCH edits properties or deletes (with cleanup) through
  // the agents writer. agents.disable refuses both (403), /api/upstream goes on.
  agents: { resource: 'agents', feature: 'agents', write: { ops: ['update'], writer: true, feature: 'agents' } },
  agents_summary: { resource: 'agents', base: 'agents', feature: 'agents' },
  // what agents report on their pings (0086_upstream.sql), for the agent health timeline
  agent_telemetry: { resource: 'agents', feature: 'agents' },
  // Health: canaries are written by the health service, as /api/canary writes them (spec validation, checks
  // reconciled, the scheduler reloaded; a CR-sourced canary patched in the cluster).
  canaries: { resource: 'canaries', write: { ops: ['insert', 'update', 'delete'], writer: true, feature: 'settings.health' } },
  checks: { resource: 'canaries' },
  checks_unlogged: { resource: 'canaries' },
  check_statuses: { resource: 'canaries' },
  check_statuses_1h: { resource: 'canaries' },
  check_statuses_1d: { resource: 'canaries' },
  check_summary: { resource: 'canaries', base: 'checks' },
  canaries_with_status: { resource: 'canaries', base: 'canaries' },
  check_names: { resource: 'canaries', base: 'checks' },
  check_labels: { resource: 'canaries' },
  checks_labels_keys: { resource: 'canaries' },
  job_history: { resource: 'database' },
  job_histories: { resource: 'database', base: 'job_history' },
  job_history_names: { resource: 'database' },
  // Kubernetes (0020). Rows of custom resources are written by the informers (the CR is the source of truth). The
  // settings tables are written by the kubernetes module's settings writer: rows made here have source 'UI', and an
  // edit or delete of a CR-sourced row patches or deletes the CR as the caller.
  topologies: { resource: 'topologies', write: { ops: ['insert', 'update', 'delete'], writer: true, feature: 'settings.topology' } },
  config_scrapers: { resource: 'config_scrapers', write: { ops: ['insert', 'update', 'delete'], writer: true, feature: 'settings.config_scraper' } },
  // Playbooks (issue 14): written by the settings writer as the reference UI sends them (spec checked, source 'UI',
  // soft delete); a CR-sourced playbook is edited in the cluster. Upserts and filterless writes are refused.
  playbooks: { resource: 'playbooks', write: { ops: ['insert', 'update', 'delete'], writer: true, feature: 'playbooks' } },
  // Secret-capable columns read `***` when static, references as written (0040_connections.sql); the CR's spec may
  // carry inline secret values, so it stays hidden. Writes go through the connections writer (`***` keeps the value).
  connections: {
    resource: 'connections', hidden: ['spec'], masked: CONNECTION_MASKS, write: { ops: ['insert', 'update', 'delete'], writer: true, feature: 'settings.connections' },
  },
  connection_details: { resource: 'connections', base: 'connections' },
  // Settings resources (0041): lists read the *_with_status views (live rows, latest job run, agent); the tables are
  // written by the settings writer like topologies. Incident rules belong to the incident resource, as their routes do.
  topologies_with_status: { resource: 'topologies', base: 'topologies' },
  config_scrapers_with_status: { resource: 'config_scrapers', base: 'config_scrapers' },
  teams_with_status: { resource: 'database', base: 'teams' },
  // a union of scrapers, topologies and logging backends: created_by and agent_id embed as the tables' do
  integrations_with_status: { resource: 'integrations', base: 'topologies' },
  // Topology (0060_topology.sql): components and their links are written by the topology runner. By hand: "Show
  // hidden" toggles and moves (hidden, parent_id) by PATCH, every other column refused; a trigger refuses a move that
  // makes a cycle (400 naming the ids). Manual config links are config_component_relationships above.
  components: { resource: 'topologies', write: { ops: ['update'], immutable: COMPONENT_FIXED, feature: 'topology' } },
  component_relationships: { resource: 'topologies' },
  check_component_relationships: { resource: 'topologies' },
  team_components: { resource: 'topologies' },
  topology: { resource: 'topologies', base: 'components' },
  checks_by_component: { resource: 'topologies', base: 'check_component_relationships' },
  check_summary_by_component: { resource: 'topologies' },
  incident_summary_by_component: { resource: 'topologies' },
  analysis_summary_by_component: { resource: 'topologies' },
  component_names: { resource: 'topologies', base: 'components' },
  component_names_all: { resource: 'topologies', base: 'components' },
  component_labels: { resource: 'topologies' },
  component_labels_keys: { resource: 'topologies' },
  components_with_logs: { resource: 'topologies', base: 'components' },
  component_types: { resource: 'topologies' },
  component_status_history: { resource: 'topologies' }, // the health history (0063): read only, written by its trigger
  job_history_latest_status: { resource: 'database', base: 'job_history' },
  // The event queue (0073; the reference's database.system, admin only): no role reads only for admins here, so the
  // nearest, rbac (admins and editors). Read only: consumers write it.
  event_queue: { resource: 'rbac' },
  event_queue_summary: { resource: 'database' }, // the Event Queue page: every role reads the counts (the rows stay admin's)
  incident_rules: { resource: 'incident', write: { ops: ['insert', 'update', 'delete'], writer: true, feature: 'settings.rules' } },
  logging_backends: { resource: 'logging_backends', write: { ops: ['insert', 'update', 'delete'], writer: true, feature: 'settings.logging_backends' } },
  // Catalog (0050_catalog.sql): written by the scrape engine; links made by hand (no scraper) can be added and
  // removed by writers. Views and RPCs the catalog screens read are registered below with 0051.
  config_items: { resource: 'database' },
  config_items_last_scraped_time: { resource: 'database' },
  config_changes: { resource: 'database' },
  config_analysis: { resource: 'database' },
  // Links made by hand (selector_id 'manual', no scraper) are added and removed here, as the reference UI's "Link
  // component to config" and "Delete config link" do; a trigger refuses scraped links (0051_catalog_views.sql).
  config_relationships: { resource: 'database', write: { ops: ['insert', 'delete'], readOnly: STAMPS, feature: 'config' } },
  config_locations: { resource: 'database' },
  check_config_relationships: { resource: 'database' },
  config_component_relationships: { resource: 'database', write: { ops: ['insert', 'delete'], readOnly: STAMPS, feature: 'config' } },
  artifacts: { resource: 'database', hidden: ['content'] },
  // Playbook runs (0070, 0074): written by the engine and the /api/playbook routes only. A `secret` parameter is
  // stored sealed and reads `***` here as in every other read.
  playbook_runs: { resource: 'playbook_runs', masked: { parameters: 'playbook_run_parameters_masked' } },
  playbook_run_actions: { resource: 'playbook_runs' },
  playbook_approvals: { resource: 'playbook_runs' },
  playbook_run_action_logs: { resource: 'playbook_runs' },
  playbook_names: { resource: 'playbooks', base: 'playbooks' },
  playbooks_for_agent: { resource: 'playbooks' },
  // Catalog views and RPCs (0051_catalog_views.sql): the list, the item, filter values, changes and insights.
  configs: { resource: 'database', base: 'config_items' },
  config_detail: { resource: 'database', base: 'config_items' },
  config_names: { resource: 'database', base: 'config_items' },
  config_types: { resource: 'database' },
  config_classes: { resource: 'database' },
  config_statuses: { resource: 'database' },
  config_tags: { resource: 'database' },
  config_labels: { resource: 'database' },
  config_tags_labels_keys: { resource: 'database' },
  config_summary: { resource: 'database' },
  config_item_summary_3d: { resource: 'database' },
  config_item_summary_7d: { resource: 'database' },
  config_item_summary_30d: { resource: 'database' },
  catalog_changes: { resource: 'database', base: 'config_changes' },
  config_changes_items: { resource: 'database', base: 'config_changes' },
  change_types: { resource: 'database' },
  config_changes_by_types: { resource: 'database' },
  analysis_types: { resource: 'database' },
  analyzer_types: { resource: 'database' },
  config_analysis_items: { resource: 'database', base: 'config_analysis' },
  config_analysis_analyzers: { resource: 'database' },
  config_analysis_by_severity: { resource: 'database' },
  check_summary_for_config: { resource: 'canaries', base: 'checks' },
  // Notifications (issue 15, 0083): writes go through the notifications module's writer (validation, CR rows
  // read-only); URL credentials in custom_services read masked.
  notifications: {
    resource: 'notifications', masked: NOTIFICATION_MASKS,
    write: { ops: ['insert', 'update', 'delete'], writer: true, feature: 'settings.notifications' },
  },
  notification_silences: { resource: 'notifications', write: { ops: ['insert', 'update', 'delete'], writer: true, feature: 'settings.notifications' } },
  notifications_summary: { resource: 'notifications', base: 'notifications' },
  notification_send_history: { resource: 'notifications' },
  notification_send_history_summary: { resource: 'notifications', base: 'notification_send_history' },
  notification_send_history_resource_types: { resource: 'notifications' },
  notification_send_history_resource_tags: { resource: 'notifications' },
  // Incidents (0030_incidents.sql). Triggers enforce the spec's rules (status transitions, hypothesis hierarchy,
  // enums, required fields), set created_by to the acting person and write incident_histories.
  incidents: {
    resource: 'incident',
    write: {
      ops: ['insert', 'update', 'delete'], readOnly: [...STAMPS, 'incident_id', 'acknowledged', 'resolved', 'closed'], immutable: ['id', 'created_by'],
      creatorByTrigger: true,
    },
  },
  incident_summary: { resource: 'incident', base: 'incidents' },
  incidents_by_component: { resource: 'incident', base: 'incidents' },
  incidents_by_config: { resource: 'incident', base: 'incidents' },
  incidents_by_check: { resource: 'incident', base: 'incidents' },
  incident_histories: { resource: 'incident' },
  incident_relationships: { resource: 'incident', write: { ops: ['insert', 'delete'], readOnly: STAMPS } },
  hypotheses: {
    resource: 'incident',
    write: { ops: ['insert', 'update', 'delete'], readOnly: STAMPS, immutable: ['id', 'incident_id', 'created_by'], creatorByTrigger: true },
  },
  evidences: {
    resource: 'evidences',
    write: { ops: ['insert', 'update', 'delete'], readOnly: [...STAMPS, 'script_result'], immutable: ['id', 'created_by'], creatorByTrigger: true },
  },
  comments: {
    resource: 'comments',
    write: { ops: ['insert', 'update', 'delete'], readOnly: STAMPS, immutable: ['id', 'incident_id', 'created_by'], creatorByTrigger: true },
  },
  // Soft delete only (PATCH deleted_at); delivery_* is what the server did with the notification.
  responders: {
    resource: 'responder',
    write: {
      ops: ['insert', 'update'],
      readOnly: [...STAMPS, 'delivery_status', 'delivery_error', 'delivered_at'],
      immutable: ['id', 'incident_id', 'created_by', 'type', 'team_id', 'person_id'],
      creatorByTrigger: true,
    },
  },
  // Saved views (0053_saved_query.sql): everyone reads; each person creates, renames and deletes their own.
  saved_query: { resource: 'database', write: { ops: ['insert', 'update', 'delete'], readOnly: STAMPS, immutable: ['id'], owner: 'created_by' } },
};

/** Functions defined by migrations and exposed through /rpc (0003_db_api.sql). */
export const FUNCTIONS: Readonly<Record<string, FunctionSpec>> = {
  search_people: { resource: 'database', action: 'read' },
  person_teams: { resource: 'database', action: 'read' },
  team_member_count: { resource: 'database', action: 'read' },
  // 0030_incidents.sql: the creation sequence, "Link to Incident" and the hypothesis delete, each in one transaction.
  create_incident: { resource: 'incident', action: 'write' },
  link_to_incident: { resource: 'evidences', action: 'write' },
  delete_hypothesis: { resource: 'incident', action: 'write' },
  // 0051_catalog_views.sql: the Relationships tab, the item's location parents, the insights filter values.
  related_configs_recursive: { resource: 'database', action: 'read' },
  get_parents_by_location: { resource: 'database', action: 'read' },
  config_analysis_filter_options: { resource: 'database', action: 'read' },
  // 0074_playbook_views.sql: a run's actions and its child runs' (run detail)
  get_playbook_run_actions: { resource: 'playbook_runs', action: 'read' },
  // 0083_notification_views.sql: a resource's sends (and their digest rows)
  notification_send_history_of_resource: { resource: 'notifications', action: 'read' },
};
