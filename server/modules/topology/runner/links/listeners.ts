import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { syncTeamComponents } from '../../teams.js';
import { checksStep } from './checks.js';
import { componentsWithChecks } from './queries.js';

/** Bursts of check changes (a CR sync of many canaries) relink once, this long after the last. */
const CHECKS_SETTLE_MS = 300;

/**
 * Links kept current between runs, on the leader only (one writer), from the events bus:
 * - a team saved here or anywhere (`teams`, ids) → its team_components (syncTeamComponents);
 * - checks created, changed or deleted (`checks`: canary saves, CR syncs, transforms) → every topology's check
 *   selectors run again, as the run's checks step would, so a check created after the run links at once rather
 *   than at the next run. Check results do not publish `checks`, so this does not run per result.
 * A reconnect of the bus (events lost) does both. Each kind runs one at a time, in order.
 */
export const linkListeners: FastifyPluginAsync = fp(async (app) => {
  if (!app.hasDecorator('events')) return;
  const leadership = app.hasDecorator('leadership') ? app.leadership : null;
  const leads = () => !leadership || leadership.isLeader();
  let teams = Promise.resolve();
  let checks = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;

  const resyncTeams = (ids?: string[]) => {
    teams = teams.then(async () => {
      if (!leads()) return;
      const out = await syncTeamComponents(app.db, ids);
      if (out.notes.length) app.log.warn({ notes: out.notes }, 'team components: selectors that match nothing');
    }).catch((err) => app.log.error({ err }, 'team components: resync failed'));
  };
  const relinkChecks = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      checks = checks.then(() => (leads() ? relinkAllChecks(app) : undefined))
        .catch((err) => app.log.error({ err }, 'topology check links: relink failed'));
    }, CHECKS_SETTLE_MS);
  };

  const off = app.events.bus.subscribe((event) => {
    if (event.type === 'resync') {
      resyncTeams();
      relinkChecks();
    } else if (event.type === 'change' && event.relation === 'teams') resyncTeams(event.ids?.length ? [...event.ids] : undefined);
    else if (event.type === 'change' && event.relation === 'checks') relinkChecks();
  });
  app.addHook('onClose', async () => {
    off();
    if (timer) clearTimeout(timer);
    await Promise.all([teams, checks]);
  });
});

/**
 * The checks step again for each topology whose live components have `checks`, from what the last run saved
 * (components.component_checks). As the run's own link steps, it works on committed rows outside the save's lock: a
 * run that overlaps writes the same links, and whichever comes last is current.
 */
async function relinkAllChecks(app: FastifyInstance): Promise<void> {
  for (const [topologyId, saved] of await componentsWithChecks(app.db)) {
    const out = await checksStep.run(app.db, topologyId, saved, app.log);
    if (out.notes?.length) app.log.debug({ topologyId, notes: out.notes }, 'topology check links: notes');
  }
}
