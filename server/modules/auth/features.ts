import type pg from 'pg';
import { featureStates, type Feature } from '../../contracts/rbac.js';
import { ApiError } from '../../lib/errors.js';
import { propertyMap } from './queries.js';

/**
 * Refuses (403 "<feature> is disabled") when the feature is off, by its own `{feature}.disable` property or a parent's:
 * the same states whoami hands the web, which hides the page, so the server refuses what the page would have written.
 * Read on each call (no cache), so a flag takes effect on the next request in every replica.
 */
export async function requireFeature(db: pg.Pool | pg.PoolClient, feature: Feature): Promise<void> {
  if (!featureStates(await propertyMap(db))[feature]) {
    throw new ApiError(403, 'feature_disabled', `${feature} is disabled`, null, `An admin can enable it on the Feature Flags page (${feature}.disable).`);
  }
}
