/**
 * The kinds of row `integrations_with_status` holds (its `integration_type`), one line each: the table that stores
 * them (their /settings/{table} editor and /api/db relation) and how the page names them.
 */
export const INTEGRATION_TYPES = {
  scrapers: { label: 'Catalog Scraper', table: 'config_scrapers' },
  topologies: { label: 'Topology', table: 'topologies' },
  logging_backends: { label: 'Log Backend', table: 'logging_backends' },
} as const;

export type IntegrationType = keyof typeof INTEGRATION_TYPES;

/** The type of a /settings/integrations/{type}/{id} URL, or undefined when it is none of them ('Unknown type'). */
export function integrationType(type: string | undefined): IntegrationType | undefined {
  return type && Object.hasOwn(INTEGRATION_TYPES, type) ? (type as IntegrationType) : undefined;
}
