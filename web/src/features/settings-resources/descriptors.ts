import type { Feature, Resource } from '@contracts/rbac-table';

/** A column of the generic list (spec 001 §2, "Settings screens"), by id. */
export type ResourceColumnId =
  | 'name' | 'source' | 'schedule' | 'namespace' | 'job_status' | 'last_run' | 'last_failed' | 'tags' | 'created_at'
  | 'updated_at' | 'created_by';

/** The §2 columns in their order; a descriptor hides some. */
export const RESOURCE_COLUMNS: readonly ResourceColumnId[] = [
  'name', 'source', 'schedule', 'namespace', 'job_status', 'last_run', 'last_failed', 'tags', 'created_at', 'updated_at', 'created_by',
];

/** A body column the resource form writes (spec 001 §3, "Resource kinds"; the server's writer takes exactly these). */
export type ResourceField = 'name' | 'namespace' | 'labels' | 'spec' | 'schedule' | 'icon' | 'source';

/** A type tile on a new scraper or topology: the spec it starts from. */
export interface TypeTile {
  label: string;
  /** What the tile makes, in a few words. */
  description: string;
  spec: Record<string, unknown>;
}

/** How one /settings/{table} resource is listed, edited and written: the one table the generic pages read. */
export interface ResourceDescriptor {
  table: string;
  /** The list's title and the breadcrumb's middle crumb. */
  title: string;
  /** One of them, for "Add …" and messages. */
  singular: string;
  /** RBAC resource as the server's /api/db registry checks it: read for the pages, write for Add, Save and Delete. */
  resource: Resource;
  feature: Feature;
  /**
   * The list's relation: the `*_with_status` view (job columns) where there is one. While a view is not in this
   * server yet (404), the list reads `table` itself, without the job columns.
   */
  listRelation: string;
  /** Embeds the list adds to `*,created_by(id,name,avatar)`. */
  listEmbeds?: string;
  /** §2's hiding rules: canaries hide Namespace, topologies Schedule, the rest both. */
  hiddenColumns: readonly ResourceColumnId[];
  /** Columns after Name that only this table has. */
  extraColumns?: readonly 'members'[];
  /** The columns the form posts (POST and PATCH bodies carry these, and created_by on POST). */
  fields: readonly ResourceField[];
  /** The Kubernetes kind of its rows (crds/), when it has one. */
  kind?: string;
  defaultNamespace?: string;
  /** The spec's JSON schema for the Code tab; absent: no markers. */
  schema?: () => Promise<Record<string, unknown>>;
  /** The list's row limit: 100 unless set (spec 001 §2). */
  listLimit?: number;
  /** Shown before a new one's form, in this order. */
  tiles?: readonly TypeTile[];
  /** Where a save or delete of one ends (spec 001 §4: topologies and scrapers go to Integrations). */
  afterWrite?: string;
  /** A table with a page of its own: the list's rows open there. */
  rowHref?: (id: string) => string;
  /** Detail tabs besides Spec (spec 001 §2: spec, manageTeam (teams only), jobHistory). */
  tabs: readonly ('manageTeam' | 'jobHistory')[];
  /** A table whose list and editor live elsewhere now: /settings/{table}[/{id|new}] redirects there. */
  movedTo?: (id: string | undefined) => string;
}

// The JSON schema of a kind is its CRD's openAPIV3Schema spec, generated from the zod spec the server validates with
// (crds/ from server/modules/kubernetes/kinds.ts): the editor's markers and the server's 400s agree. Loaded with the
// editor only.
const crdSchema = (load: () => Promise<{ default: string }>) => async () => {
  const [{ parse }, text] = await Promise.all([import('yaml'), load()]);
  const crd = parse(text.default) as { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } } }[] } };
  return { ...crd.spec.versions[0].schema.openAPIV3Schema.properties.spec, $schema: 'http://json-schema.org/draft-07/schema#' };
};

/** A schema the server serves (`/api/schemas/{name}.schema.json`); while a server has none (404), no markers. */
const serverSchema = (name: string) => async () => {
  const { api, ApiError } = await import('../../lib/api-client');
  return api
    .get<Record<string, unknown>>(`/api/schemas/${name}.schema.json`)
    .catch((err: unknown) => (err instanceof ApiError && err.status === 404 ? {} : Promise.reject(err)));
};

const INTEGRATIONS = '/settings/integrations';
const BOTH: readonly ResourceColumnId[] = ['namespace', 'schedule'];

/** Topology tiles: the shapes the reference's custom topology editor offers, as minimal valid specs. */
const TOPOLOGY_TILES: readonly TypeTile[] = [
  { label: 'Kubernetes', description: 'Clusters, namespaces and their workloads', spec: { type: 'KubernetesCluster', icon: 'kubernetes', schedule: '@every 5m', components: [{ name: 'nodes', type: 'KubernetesNodes', icon: 'server' }] } },
  { label: 'Prometheus', description: 'Components from Prometheus queries', spec: { type: 'Prometheus', icon: 'prometheus', schedule: '@every 5m', components: [{ name: 'targets', type: 'PrometheusTarget' }] } },
  { label: 'HTTP', description: 'Components from an HTTP endpoint', spec: { type: 'HTTP', icon: 'http', schedule: '@every 5m', components: [{ name: 'endpoint', type: 'Endpoint' }] } },
  { label: 'Custom', description: 'Start from an empty topology', spec: { type: 'Custom', schedule: '@every 5m', components: [] } },
];

/** The nine generic settings tables of spec 001 §2, one line each. */
export const RESOURCE_DESCRIPTORS: Readonly<Record<string, ResourceDescriptor>> = {
  canaries: {
    table: 'canaries', title: 'Health Checks', singular: 'Health Check', resource: 'canaries', feature: 'settings.health',
    listRelation: 'canaries_with_status', hiddenColumns: ['namespace'], fields: ['name', 'namespace', 'labels', 'spec', 'source'],
    kind: 'Canary', defaultNamespace: 'default', tabs: ['jobHistory'],
  },
  config_scrapers: {
    table: 'config_scrapers', title: 'Catalog Scrapers', singular: 'Catalog Scraper', resource: 'config_scrapers',
    feature: 'settings.config_scraper', listRelation: 'config_scrapers_with_status', hiddenColumns: BOTH,
    fields: ['name', 'namespace', 'labels', 'spec', 'source'], kind: 'ScrapeConfig', defaultNamespace: 'default',
    // the server's own schema of what it runs (GET /api/schemas/scrape_config.schema.json, from the zod spec it checks);
    // the tiles are the scraper spec model's (catalog-scrapers/spec-model.ts); at most 500 rows, scrapers are few
    schema: serverSchema('scrape_config'), afterWrite: INTEGRATIONS, tabs: ['jobHistory'], listLimit: 500,
    // spec 001 §2: /settings/{table} is for every table except scrapers, which live at /catalog/scrapers
    movedTo: (id) => (id ? `/catalog/scrapers/${encodeURIComponent(id)}` : '/catalog/scrapers'),
  },
  topologies: {
    table: 'topologies', title: 'Topologies', singular: 'Topology', resource: 'topologies', feature: 'settings.topology',
    listRelation: 'topologies_with_status', hiddenColumns: ['schedule'],
    fields: ['name', 'namespace', 'labels', 'spec', 'schedule', 'source'], kind: 'Topology', defaultNamespace: 'default',
    schema: crdSchema(() => import('../../../../crds/topologies.canaries.flanksource.com.yaml?raw')),
    tiles: TOPOLOGY_TILES, afterWrite: INTEGRATIONS, tabs: ['jobHistory'],
  },
  connections: {
    table: 'connections', title: 'Connections', singular: 'Connection', resource: 'connections', feature: 'settings.connections',
    listRelation: 'connections', hiddenColumns: [...BOTH, 'job_status', 'last_run', 'last_failed'],
    fields: ['name', 'namespace', 'labels', 'source'], kind: 'Connection', defaultNamespace: 'default',
    rowHref: () => '/settings/connections', tabs: [],
  },
  logging_backends: {
    table: 'logging_backends', title: 'Log Backends', singular: 'Log Backend', resource: 'logging_backends',
    feature: 'settings.logging_backends', listRelation: 'logging_backends', hiddenColumns: BOTH,
    fields: ['name', 'namespace', 'labels', 'spec', 'source'], kind: 'LoggingBackend', defaultNamespace: 'default',
    schema: crdSchema(() => import('../../../../crds/loggingbackends.apm-hub.flanksource.com.yaml?raw')), tabs: [],
  },
  notifications: {
    table: 'notifications', title: 'Notifications', singular: 'Notification', resource: 'notifications',
    feature: 'settings.notifications', listRelation: 'notifications', hiddenColumns: BOTH,
    fields: ['name', 'namespace', 'spec', 'source'], kind: 'Notification', tabs: [],
  },
  properties: {
    table: 'properties', title: 'Properties', singular: 'Property', resource: 'feature_flags', feature: 'settings.feature_flags',
    listRelation: 'properties', hiddenColumns: [...BOTH, 'job_status', 'last_run', 'last_failed', 'tags'],
    fields: ['name', 'source'], rowHref: () => '/settings/feature-flags', tabs: [],
  },
  incident_rules: {
    table: 'incident_rules', title: 'Incident Rules', singular: 'Incident Rule', resource: 'incident', feature: 'settings.rules',
    listRelation: 'incident_rules', hiddenColumns: BOTH, fields: ['name', 'spec', 'source'], kind: 'IncidentRule',
    schema: crdSchema(() => import('../../../../crds/incidentrules.mission-control.flanksource.com.yaml?raw')), tabs: [],
  },
  teams: {
    table: 'teams', title: 'Teams', singular: 'Team', resource: 'database', feature: 'settings.teams',
    listRelation: 'teams_with_status', listEmbeds: 'team_members(person_id)', hiddenColumns: [...BOTH, 'tags'],
    extraColumns: ['members'], fields: ['name', 'spec', 'icon', 'source'], tabs: ['manageTeam', 'jobHistory'],
  },
};

export function descriptorOf(table: string | undefined): ResourceDescriptor | undefined {
  return table && Object.hasOwn(RESOURCE_DESCRIPTORS, table) ? RESOURCE_DESCRIPTORS[table] : undefined;
}

/** The list's columns for a table: §2's, less what it hides, with its own after Name. */
export function visibleColumns(d: ResourceDescriptor): (ResourceColumnId | 'members')[] {
  const shown = RESOURCE_COLUMNS.filter((c) => !d.hiddenColumns.includes(c));
  return [shown[0], ...(d.extraColumns ?? []), ...shown.slice(1)];
}

export const listHref = (d: ResourceDescriptor) => `/settings/${d.table}`;
export const itemHref = (d: ResourceDescriptor, id: string) => d.rowHref?.(id) ?? `/settings/${d.table}/${encodeURIComponent(id)}`;
