import type pg from 'pg';
import type { IdentityState } from '../../contracts/auth.js';
import { effectiveRoles, type Role } from '../../contracts/rbac.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { invalidatePrincipals } from '../../plugins/auth.js';
import {
  addRoles, countActiveAdmins, deleteSessionsOf, getRoles, listUsers, lockPerson, setIdentityState, setRoles,
  softDeletePerson, SYSTEM_PERSON_ID, type PersonState,
} from './queries.js';
import { inTransaction } from '../../lib/tx.js';
import { notifyChange } from '../../lib/events.js';

// Changes that may remove an admin run one at a time, so two admins cannot demote each other at once.
const ADMINS_LOCK_KEY = 7_240_118_333;

/** User administration: roles, state, deletion; never leaves the console without an active admin. */
export function createPeopleService(db: pg.Pool) {
  /**
   * Runs a change to one person; rolls it back with 409 if it leaves no active admin where there was one. The
   * live-update events for `relations` are sent in the transaction, so they fire only if it commits.
   */
  async function guarded<T>(
    id: string, relations: string[], change: (c: pg.PoolClient, person: PersonState) => Promise<T>,
  ): Promise<T> {
    const out = await inTransaction(db, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [ADMINS_LOCK_KEY]);
      const person = await lockPerson(c, id);
      if (!person) throw new NotFoundError('person', id);
      const before = await countActiveAdmins(c);
      const result = await change(c, person);
      if (before > 0 && (await countActiveAdmins(c)) === 0) {
        throw new ConflictError('this would leave no active admin; make someone else an admin first');
      }
      for (const relation of relations) await notifyChange(c, { relation, ids: [id] });
      return result;
    });
    invalidatePrincipals();
    return out;
  }

  return {
    async users() {
      return (await listUsers(db)).map((u) => ({ ...u, roles: effectiveRoles(u.roles) }));
    },

    async roles(id: string): Promise<Role[]> {
      const roles = await getRoles(db, id);
      if (!roles) throw new NotFoundError('person', id);
      return effectiveRoles(roles);
    },

    /** Replaces the person's roles (an empty list means viewer). */
    replaceRoles(id: string, roles: Role[]) {
      return guarded(id, ['people_roles'], async (c) => {
        await setRoles(c, id, roles);
        return effectiveRoles(roles);
      });
    },

    addRoles(id: string, roles: Role[]) {
      return guarded(id, ['people_roles'], (c) => addRoles(c, id, roles));
    },

    /**
     * Activates or deactivates a user; deactivation ends their sessions (their tokens stop working too).
     * `actors` are the caller and, for a token, its creator.
     */
    setState(id: string, state: IdentityState, actors: string[]) {
      if (state === 'inactive' && actors.includes(id)) throw new BadRequestError('you cannot deactivate yourself');
      return guarded(id, ['identities'], async (c, person) => {
        if (person.state === null) throw new NotFoundError('user', id);
        await setIdentityState(c, id, state);
        if (state === 'inactive') await deleteSessionsOf(c, id);
      });
    },

    delete(id: string, actors: string[]) {
      if (actors.includes(id)) throw new BadRequestError('you cannot delete yourself');
      if (id === SYSTEM_PERSON_ID) throw new BadRequestError('the System person cannot be deleted');
      return guarded(id, ['people', 'identities', 'people_roles', 'access_tokens'], (c) => softDeletePerson(c, id));
    },
  };
}

export type PeopleService = ReturnType<typeof createPeopleService>;
