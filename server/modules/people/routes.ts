import type { FastifyPluginAsync } from 'fastify';
import { UpdatePropertiesRequest, UpdateRoleRequest, UpdateStateRequest } from '../../contracts/auth.js';
import { BadRequestError, ForbiddenError } from '../../lib/errors.js';
import type { Principal } from '../../plugins/auth.js';
import { parseBody, parseId } from '../../lib/validation.js';
import { createPeopleService } from './service.js';

type IdParams = { Params: { id: string } };

/** The caller and, for an access token, the person who created it: neither may lock themselves out. */
const actorsOf = (p: Principal) => (p.ownerId ? [p.id, p.ownerId] : [p.id]);

const READ_USERS = { access: { resource: 'identities', action: 'read' } } as const;
const WRITE_USERS = { access: { resource: 'identities', action: 'write' } } as const;

/** User administration (/api/auth/users, /api/auth/:id/*, /api/people/:id) and role bindings (/api/rbac/:id/*). */
export const peopleRoutes: FastifyPluginAsync = async (app) => {
  const people = createPeopleService(app.db);

  app.get('/auth/users', { config: READ_USERS }, async () => ({ message: 'success', payload: await people.users() }));

  app.post<IdParams>('/auth/:id/properties', { config: WRITE_USERS }, async (req) => {
    const id = parseId(req.params.id);
    const body = parseBody(UpdatePropertiesRequest, req.body);
    const roles = await people.replaceRoles(id, 'role' in body ? [body.role] : body.roles);
    return { message: 'success', payload: { id, roles } };
  });

  app.post<IdParams>('/auth/:id/update_state', { config: WRITE_USERS }, async (req) => {
    const id = parseId(req.params.id);
    const body = parseBody(UpdateStateRequest, req.body);
    if (body.id !== undefined && body.id.toLowerCase() !== id) throw new BadRequestError('id in the body differs from the path');
    await people.setState(id, body.state, actorsOf(req.principal!));
    return { message: 'success', payload: { id, state: body.state } };
  });

  app.delete<IdParams>('/people/:id', { config: WRITE_USERS }, async (req) => {
    await people.delete(parseId(req.params.id), actorsOf(req.principal!));
    return { message: 'success' };
  });

  app.post<IdParams>('/rbac/:id/update_role', { config: { access: { resource: 'rbac', action: 'write' } } }, async (req) => {
    const id = parseId(req.params.id);
    await people.addRoles(id, parseBody(UpdateRoleRequest, req.body).roles);
    return { message: 'Role updated successfully' };
  });

  // anyone may read their own roles; other people's need read on rbac
  app.get<IdParams>('/rbac/:id/roles', { config: { access: 'custom' } }, async (req) => {
    const id = parseId(req.params.id);
    if (id !== req.principal!.id && !req.can('rbac', 'read')) throw new ForbiddenError();
    return { message: '', payload: await people.roles(id) };
  });
};
