import type { FastifyPluginAsync } from 'fastify';
import { CreateTokenRequest } from '../../contracts/auth.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { invalidatePrincipals } from '../../plugins/auth.js';
import { parseExpiry } from './expiry.js';
import { parseBody, parseId } from '../../lib/validation.js';
import { propertyMap } from './queries.js';
import type { AuthRoutesOptions } from './session-routes.js';
import { deleteToken, getTokenOwners, insertTokenPerson, listTokens, tokenNameTaken } from './token-queries.js';
import { insertAccessToken } from './tokens.js';
import { inTransaction } from '../../lib/tx.js';
import { notifyChange } from '../../lib/events.js';

const DEFAULT_EXPIRY = '90d';

/** Personal access tokens: create (shown once), list (own; admins all), delete (creator or admin). */
export const tokenRoutes: FastifyPluginAsync<AuthRoutesOptions> = async (app) => {
  app.post('/create_token', { config: { access: 'authenticated' } }, async (req) => {
    const p = req.principal!;
    // a token minting tokens would outlive its own revocation
    if (p.via === 'token') throw new ForbiddenError('access tokens cannot create access tokens; sign in to create one');
    const body = parseBody(CreateTokenRequest, req.body);
    const expiry = body.expiry ?? (await propertyMap(app.db))['access_token.default_expiry'] ?? DEFAULT_EXPIRY;
    const expiresAt = new Date(Date.now() + parseExpiry(expiry));
    const created = await inTransaction(app.db, async (c) => {
      if (await tokenNameTaken(c, p.id, body.name)) throw new ConflictError(`a token named "${body.name}" already exists`);
      const personId = await insertTokenPerson(c, p, body.name);
      const token = await insertAccessToken(c, { personId, name: body.name, createdBy: p.id, expiresAt, autoRenew: body.auto_renew });
      await notifyChange(c, { relation: 'access_tokens', ids: [token.id] });
      return token;
    });
    return { message: 'success', payload: { token: created.token, id: created.id, expires_at: expiresAt.toISOString() } };
  });

  app.get('/tokens', { config: { access: 'authenticated' } }, async (req) => {
    const all = req.can('identities', 'write');
    return { message: 'success', payload: await listTokens(app.db, all ? null : req.principal!.id) };
  });

  app.delete<{ Params: { id: string } }>('/token/:id', { config: { access: 'authenticated' } }, async (req) => {
    const id = parseId(req.params.id, 'token id');
    const p = req.principal!;
    const owners = await getTokenOwners(app.db, id);
    const mine = owners && (owners.created_by === p.id || owners.person_id === p.id);
    // someone else's token is as invisible as a missing one
    if (!owners || (!mine && !req.can('identities', 'write'))) throw new NotFoundError('token', id);
    await inTransaction(app.db, async (c) => {
      await deleteToken(c, id);
      await notifyChange(c, { relation: 'access_tokens', ids: [id] });
    });
    invalidatePrincipals();
    return { message: 'success' };
  });
};
