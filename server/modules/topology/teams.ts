import type { LinkStep } from './runner/types.js';
import { syncTeamLinks, teamsWithSelectors, type Q } from './runner/links/queries.js';
import { TARGETS } from './runner/links/resource-selector.js';
import { linksOf, listOf, uniqueBy, type SelectorEntry } from './runner/links/select.js';

/**
 * team_components from teams' `spec.components` (ResourceSelectors over live components), selector_id per selector.
 * Kept current two ways: when a team is saved (every /api/db write publishes `{relation: 'teams', ids}` on the events
 * bus; runner/links/listeners.ts resyncs those teams) and after every topology run (the `teams` link step resyncs every team,
 * so new and vanished components are picked up). Rows made by hand (no selector_id) are left alone. A team deleted
 * loses its selector rows.
 */
export async function syncTeamComponents(db: Q, teamIds?: string[]): Promise<{ linked: number; notes: string[] }> {
  const teams = await teamsWithSelectors(db, teamIds);
  const notes: string[] = [];
  const entries: SelectorEntry[] = teams.filter((t) => t.live).flatMap((t) => listOf(t.selectors).map((raw, i) => ({
    // a team is no component: the entry's owner is the team, named for the notes
    component: { id: t.id, parentId: null, built: { name: t.name, externalId: t.name, children: [], specPath: `team ${t.name}: spec.components` } },
    raw, path: `team ${t.name}: spec.components.${i}`,
  })));
  const links = uniqueBy(await linksOf(db, TARGETS.components, entries, notes), (l) => `${l.owner}/${l.target}`);
  const linked = await syncTeamLinks(db, teams.map((t) => t.id), links);
  return { linked, notes };
}

/** The run's last link step: every team's components again (this run's components may have come or gone). */
export const teamsStep: LinkStep = {
  name: 'teams',
  run: (db) => syncTeamComponents(db),
};
