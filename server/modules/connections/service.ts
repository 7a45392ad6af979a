import type pg from 'pg';
import { NotFoundError } from '../../lib/errors.js';
import { connectionKey, USERS, usersOf, type UsageKind } from './queries.js';

/** `GET /api/connection/{id}/usage`: what names the connection, by kind (at most 500 of each). */
export type ConnectionUsage = Record<UsageKind, Record<string, unknown>[]>;

export async function connectionUsage(db: pg.Pool, id: string): Promise<ConnectionUsage> {
  const c = await connectionKey(db, id);
  if (!c) throw new NotFoundError('connection', id);
  const kinds = Object.keys(USERS) as UsageKind[];
  const found = await Promise.all(kinds.map((k) => usersOf(db, k, c)));
  return Object.fromEntries(kinds.map((k, i) => [k, found[i]])) as ConnectionUsage;
}
