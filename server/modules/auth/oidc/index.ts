import type { FastifyPluginAsync } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../../config.js';
import {
  type AuthConfigResponse, type Organization, type OrganizationsResponse, SwitchOrganizationRequest,
} from '../../../contracts/auth.js';
import { BadRequestError, ForbiddenError } from '../../../lib/errors.js';
import { openSecret, secretsKey } from '../../../lib/secret-box.js';
import { parseBody } from '../../../lib/validation.js';
import { invalidatePrincipals } from '../../../plugins/auth.js';
import { recordAuthEvent } from '../events.js';
import { createOidcClient, type OidcClient } from './client.js';
import { listMemberships, sessionIdByTokenHash, sessionOrgState, setPersonRoles, setSessionOrganization } from './queries.js';
import { createRoleMapper } from './role-mapping.js';
import { oidcRoutes } from './routes.js';
import { sha256 } from '../../../lib/crypto.js';

/**
 * Hosted mode (AUTH_MODE=oidc): sign-in with any OpenID Connect provider (/api/auth/oidc/*), organisations as role
 * contexts (/api/auth/organizations), and GET /api/auth/config for the login page in both modes. Register with
 * prefix /api/auth.
 */
export const oidcModule: FastifyPluginAsync<{ config: Config }> = async (app, { config }) => {
  const hosted = config.AUTH_MODE === 'oidc';

  app.get('/config', { config: { access: 'public' } }, async (): Promise<AuthConfigResponse> => ({
    mode: config.AUTH_MODE,
    ...(hosted && { oidc: { display_name: config.OIDC_DISPLAY_NAME, login_url: '/api/auth/oidc/login' } }),
    local_login: hosted ? config.OIDC_LOCAL_LOGIN : 'all',
  }));

  app.get('/organizations', { config: { access: 'authenticated' } }, async (req): Promise<OrganizationsResponse> => {
    const p = req.principal!;
    const organizations = await listMemberships(app.db, p.id);
    const state = p.sessionId ? await sessionOrgState(app.db, p.sessionId) : null;
    return {
      organizations,
      active_organization_id: state?.organization_id ?? null,
      required: hosted && (state?.org_claim_present ?? false),
    };
  });

  app.post('/organizations/switch', { config: { access: 'authenticated' } }, async (req) => {
    const p = req.principal!;
    const body = parseBody(SwitchOrganizationRequest, req.body);
    if (!p.sessionId) throw new BadRequestError('only a browser session has an active organization');
    const org = (await listMemberships(app.db, p.id)).find((o) => o.id === body.organization_id);
    if (!org) throw new ForbiddenError('you are not a member of this organization');
    await setSessionOrganization(app.db, p.sessionId, org.id);
    await setPersonRoles(app.db, p.id, org.roles);
    invalidatePrincipals();
    await recordAuthEvent(app.db, req, {
      personId: p.id, sessionId: p.sessionId, type: 'organization_switched', details: { organization: org.name, roles: org.roles },
    });
    return { message: 'success', payload: { organization: org, roles: org.roles } };
  });

  if (hosted) {
    const client = oidcClientFor(config);
    const mapper = createRoleMapper(config.OIDC_ROLE_MAPPING, config.OIDC_ROLE_MAPPER_CEL);
    await app.register(oidcRoutes, { prefix: '/oidc', config, client, mapper });
  }
};

const clients = new WeakMap<Config, OidcClient>();

/** The provider client of a configuration (one per config; built, and its settings checked, on first use). */
export function oidcClientFor(config: Config): OidcClient {
  let c = clients.get(config);
  if (!c) clients.set(config, (c = createOidcClient(config)));
  return c;
}

/** The session's active organisation with the caller's roles there (whoami), or null. */
export async function activeOrganization(db: pg.Pool, personId: string, sessionId: string | undefined): Promise<Organization | null> {
  if (!sessionId) return null;
  const state = await sessionOrgState(db, sessionId);
  if (!state?.organization_id) return null;
  return (await listMemberships(db, personId)).find((o) => o.id === state.organization_id) ?? null;
}

/**
 * Whether the local password form may sign this person in: always in local mode; in oidc mode per OIDC_LOCAL_LOGIN
 * (`admins`: people holding the admin role). The answer when not: the message to show.
 */
export function localLoginRefusal(config: Config, roles: readonly string[] | null): string | null {
  if (config.AUTH_MODE !== 'oidc' || config.OIDC_LOCAL_LOGIN === 'all') return null;
  if (config.OIDC_LOCAL_LOGIN === 'none') return `password sign-in is off: sign in with ${config.OIDC_DISPLAY_NAME}`;
  if (roles && roles.includes('admin')) return null;
  return `only administrators may sign in with a password: sign in with ${config.OIDC_DISPLAY_NAME}`;
}

/**
 * RP-initiated logout: the provider's end_session URL for the session of this cookie (with its id_token as hint), or
 * null (local mode, a local session, or a provider without end_session_endpoint or unreachable). Call before the
 * session is deleted.
 */
export async function oidcLogoutUrl(db: pg.Pool, config: Config, sessionToken: string | undefined): Promise<string | null> {
  if (config.AUTH_MODE !== 'oidc' || !sessionToken) return null;
  const sessionId = await sessionIdByTokenHash(db, sha256(sessionToken));
  const state = sessionId ? await sessionOrgState(db, sessionId) : null;
  if (!state?.id_token_sealed) return null;
  try {
    const idToken = openSecret(state.id_token_sealed, secretsKey(config));
    return await oidcClientFor(config).logoutUrl(idToken, `${config.publicUrl}/login`);
  } catch {
    return null;
  }
}
