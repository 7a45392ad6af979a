/** The local agent's id (reference schema): rows it owns are this console's own. */
export const LOCAL_AGENT = '00000000-0000-0000-0000-000000000000';

/** Where a scraper comes from, as the list's Source cell and the detail's banner say it. */
export interface ScraperSource {
  /** What the Source column shows: 'UI', 'Linked to …'. */
  label: string;
  /** A page about the source (the cluster's custom resources), when there is one. */
  href: string | null;
  /** The console edits it: made here, or a custom resource the server patches as the caller. */
  editable: boolean;
  /** A ScrapeConfig custom resource: saving updates it in the cluster (GitOps-managed ones are refused there). */
  customResource: boolean;
}

/** An agent's scraper runs on that agent, not here. */
export const onAgent = (row: { agent_id?: string | null }) => !!row.agent_id && row.agent_id !== LOCAL_AGENT;

/**
 * Spec 001 §4 "Source link rules" for scrapers: an agent set (not the all-zero id) is 'Linked to {agent}';
 * `KubernetesCRD` (any source starting with kubernetes) links to the cluster's custom resources; `ConfigFile` is
 * 'Linked to local file'; UI or empty is editable. Another source is its owner's: 'Linked to {source}', read-only.
 */
export function scraperSource(row: { source?: string | null; agent_id?: string | null; agent?: { name: string | null } | null }): ScraperSource {
  if (onAgent(row)) {
    return { label: `Linked to ${row.agent?.name ?? row.agent_id}`, href: null, editable: false, customResource: false };
  }
  const source = row.source ?? '';
  if (!source || source === 'UI') return { label: 'UI', href: null, editable: true, customResource: false };
  if (/^kubernetes/i.test(source)) return { label: source, href: '/settings/kubernetes', editable: true, customResource: true };
  if (source === 'ConfigFile') return { label: 'Linked to local file', href: null, editable: false, customResource: false };
  return { label: `Linked to ${source}`, href: null, editable: false, customResource: false };
}
