import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
import { inTransaction } from '../../lib/tx.js';
import { parseId } from '../../lib/validation.js';
import { recordAuthEvent } from './events.js';
import { factorByMethod } from './factors/index.js';
import { KratosError } from './flows/errors.js';
import { deletePersonSessions, selectPersonSessions } from './flows/queries.js';
import { toKratosSession } from './flows/store.js';
import { sessionsEnded } from './ory-sessions.js';

const RESETTABLE = ['totp', 'lookup_secret', 'webauthn', 'passkey'] as const;
const write = { access: { resource: 'identities', action: 'write' } } as const;
const read = { access: { resource: 'identities', action: 'read' } } as const;

async function personExists(db: import('pg').Pool, id: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM people WHERE id = $1 AND deleted_at IS NULL', [id]);
  return rows.length > 0;
}

/** Kratos' admin API, as Edit User uses it: a person's sessions (list, sign out everywhere), second-factor reset. */
export const adminRoutes: FastifyPluginAsync<{ config: Config }> = async (app, { config }) => {
  app.get<{ Params: { id: string } }>('/admin/identities/:id/sessions', { config: read }, async (req) => {
    const id = parseId(req.params.id);
    if (!(await personExists(app.db, id))) throw new KratosError(404, undefined, 'Unable to locate the resource');
    return (await selectPersonSessions(app.db, id, config.SESSION_IDLE_MINUTES)).map((r) => toKratosSession(r));
  });

  app.delete<{ Params: { id: string } }>('/admin/identities/:id/sessions', { config: write }, async (req, reply) => {
    const id = parseId(req.params.id);
    if (!(await personExists(app.db, id))) throw new KratosError(404, undefined, 'Unable to locate the resource');
    const count = await deletePersonSessions(app.db, id);
    await sessionsEnded(app.db);
    await recordAuthEvent(app.db, req, { personId: id, type: 'session_revoked', details: { by: req.principal!.id, all: true, count } });
    return reply.status(204).send();
  });

  app.delete<{ Params: { id: string; type: string } }>('/admin/identities/:id/credentials/:type', { config: write }, async (req, reply) => {
    const id = parseId(req.params.id);
    const { type } = req.params;
    const factor = (RESETTABLE as readonly string[]).includes(type) ? factorByMethod(type) : undefined;
    if (!factor?.reset) throw new KratosError(400, undefined, `credentials of type ${type.slice(0, 40)} cannot be reset here`);
    if (!(await personExists(app.db, id))) throw new KratosError(404, undefined, 'Unable to locate the resource');
    await inTransaction(app.db, async (c) => {
      await factor.reset!(c, id);
      await recordAuthEvent(c, req, { personId: id, type: 'factors_reset', method: type, details: { by: req.principal!.id } });
    });
    await sessionsEnded(app.db);
    return reply.status(204).send();
  });
};
