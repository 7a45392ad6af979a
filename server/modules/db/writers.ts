import type { Role } from '../../contracts/rbac.js';
import { ApiError } from '../../lib/errors.js';

type Row = Record<string, unknown>;

/** Who writes through /api/db: the acting person and the roles the request carries. */
export interface Caller {
  id: string | undefined;
  roles: readonly Role[];
}

/**
 * A module's own write path for a relation whose rows are more than a row (a canary's checks and scheduler, a
 * custom resource in the cluster): /api/db parses, authorises and answers in PostgREST's shape, the writer decides.
 * Each function throws the module's own errors (400 by path, 403, 404, 409), which /api/db passes on as they are.
 */
export interface RelationWriter {
  /** The body columns create takes; any other is a PGRST204, as an unknown column is. */
  insertColumns: readonly string[];
  /** The body columns update takes (besides `deleted_at`, which update turns into remove). */
  updateColumns: readonly string[];
  /**
   * Keys an update body may carry that are not columns: preconditions such as the `resource_version` of a custom
   * resource the caller saw (a stale one is a 409).
   */
  preconditions?: readonly string[];
  /** Refuses a POST body object as create would, writing nothing: a bulk POST checks every row before creating any. */
  check?(row: Row, caller: Caller): void;
  /** Creates one row from a POST body object; answers the new row's id. */
  create(row: Row, caller: Caller): Promise<string>;
  update(id: string, patch: Row, caller: Caller): Promise<void>;
  /** A soft delete (the row keeps its id with deleted_at set), or the custom resource deleted in the cluster. */
  remove(id: string, caller: Caller): Promise<void>;
}

/**
 * The writers of relations whose registry entry says `write.writer`. Modules register theirs at startup (the db plugin
 * creates this on the app as `relationWriters`), so the db module never imports them.
 */
export class RelationWriters {
  private readonly writers = new Map<string, RelationWriter>();

  register(relation: string, writer: RelationWriter): void {
    if (this.writers.has(relation)) throw new Error(`a writer for '${relation}' is already registered`);
    this.writers.set(relation, writer);
  }

  /** The relation's writer; 503 while no module has registered one (this process runs without that module). */
  get(relation: string): RelationWriter {
    const w = this.writers.get(relation);
    if (!w) throw new ApiError(503, 'PGRST001', `writes on '${relation}' are not available in this process`, null, 'The module that writes it is not running here.');
    return w;
  }
}
