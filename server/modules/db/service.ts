import type pg from 'pg';
import type { DbRequest, DbResponse } from './http.js';
import { readRelation } from './read-service.js';
import { callFunction } from './rpc-service.js';
import { loadSchemaCache, type RegistryFilter, type SchemaCache } from './schema-cache.js';
import { writeRelation } from './write-service.js';
import type { RelationWriters } from './writers.js';

export interface DbService {
  /** Introspects the schema (once; later calls reuse it). Called from onReady, after migrations. */
  load(): Promise<SchemaCache>;
  read(req: DbRequest): Promise<DbResponse>;
  write(req: DbRequest): Promise<DbResponse>;
  rpc(req: DbRequest): Promise<DbResponse>;
}

/**
 * The /api/db service over one pool, with its schema cache (of the registry entries `only` keeps) and the modules'
 * writers for the relations written through them.
 */
export function createDbService(db: pg.Pool, only?: RegistryFilter, writers?: RelationWriters): DbService {
  let cache: SchemaCache | undefined;
  let loading: Promise<SchemaCache> | undefined;
  const load = async () => {
    if (cache) return cache;
    loading ??= loadSchemaCache(db, only).then(
      (c) => (cache = c),
      (err) => {
        loading = undefined; // retry on the next request instead of caching the failure
        throw err;
      },
    );
    return loading;
  };
  return {
    load,
    read: async (req) => readRelation(db, await load(), req),
    write: async (req) => writeRelation(db, await load(), req, writers),
    rpc: async (req) => callFunction(db, await load(), req),
  };
}
