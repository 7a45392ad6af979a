import type { FastifyPluginAsync } from 'fastify';
import { NotFoundError } from '../../lib/errors.js';
import { parseId } from '../../lib/validation.js';
import { requireFeature } from '../auth/features.js';
import { liveScraper } from './engine/queries.js';
import type { ScrapeRunner } from './engine/runner.js';

export interface ConfigRoutesOptions {
  runner: ScrapeRunner;
}

type IdParams = { Params: { id: string } };
/** Running a scraper is a write on scrapers: admin and editor (spec 000 §6). */
const RUN = { access: { resource: 'config_scrapers', action: 'write' } } as const;

/** /api/config/*: the reference's config-db paths. `config.disable` closes them all. */
export const configRoutes: FastifyPluginAsync<ConfigRoutesOptions> = async (app, opts) => {
  app.addHook('preHandler', async () => requireFeature(app.db, 'config'));

  // Run Now: waits for the run (after one already under way) and answers its job and status
  app.post<IdParams>('/run/:id', { config: RUN }, async (req) => {
    const scraper = await liveScraper(app.db, parseId(req.params.id, 'scraper id'));
    if (!scraper) throw new NotFoundError('scraper', req.params.id);
    const out = await opts.runner.run(scraper);
    return { job_history_id: out.job_history_id, status: out.status };
  });
};
