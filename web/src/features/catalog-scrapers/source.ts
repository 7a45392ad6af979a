import { editableHere, sourceLinkOf } from '../settings-resources/source-link';

/** Where a scraper comes from, as the list's Source cell says it (the detail shows the settings SourceBanner). */
export interface ScraperSource {
  /** What the Source column shows: 'UI', the custom resource's source, 'Linked to …'. */
  label: string;
  /** A page about the source (the cluster's custom resources, a component), when there is one. */
  href: string | null;
  /** The console edits it: made here, or a custom resource the server patches (not one GitOps manages). */
  editable: boolean;
}

/** The agent's name the list's view embeds (`config_scrapers_with_status.agent`). */
const agentName = (agent: unknown): string | null =>
  agent && typeof agent === 'object' && typeof (agent as { name?: unknown }).name === 'string' ? (agent as { name: string }).name : null;

/** An agent's scraper runs on that agent, not here. */
export const onAgent = (row: { agent_id?: string | null }) => sourceLinkOf(row).kind === 'agent';

/** Spec 001 §4 "Source link rules" (the settings pages' `sourceLinkOf`), said in one cell. */
export function scraperSource(row: { source?: string | null; agent_id?: string | null; agent?: unknown; labels?: Record<string, unknown> | null }): ScraperSource {
  const link = sourceLinkOf(row);
  const editable = editableHere(link);
  switch (link.kind) {
    case 'editable':
      return { label: 'UI', href: null, editable };
    case 'agent':
      return { label: `Linked to ${agentName(row.agent) ?? link.agentId}`, href: null, editable };
    case 'localFile':
      return { label: 'Linked to local file', href: null, editable };
    case 'gitops':
      return { label: `Linked to ${link.link}`, href: null, editable };
    case 'link':
      return { label: editable ? link.source : `Linked to ${link.source}`, href: link.href, editable };
    case 'other':
      return { label: `Linked to ${link.source}`, href: null, editable };
  }
}
