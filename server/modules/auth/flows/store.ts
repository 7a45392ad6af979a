import type { Config } from '../../../config.js';
import type {
  Identity, KratosSession, SelfServiceFlow, SessionAuthenticationMethod, UiNode, UiText,
} from '../../../contracts/identity.js';
import type { FlowRow, IdentityRow, SessionRow } from './queries.js';
import type { StoredFlow } from './types.js';

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : undefined);

/** A flow row as kinds and factors see it (no CSRF hash, no messages). */
export function toStored(row: FlowRow): StoredFlow {
  return {
    id: row.id, type: row.type, state: row.state, person_id: row.person_id, session_id: row.session_id,
    return_to: row.return_to, requested_aal: row.requested_aal, refresh: row.refresh, data: row.data ?? {},
    attempts: row.attempts, request_url: row.request_url, created_at: row.created_at, expires_at: row.expires_at,
  };
}

/** Where a flow's form posts. */
export const flowAction = (config: Config, flow: StoredFlow) =>
  `${config.publicUrl}/api/.ory/self-service/${flow.type}?flow=${flow.id}`;

/** The flow as Kratos' frontend API answers it. */
export function toFlowJson(
  config: Config, flow: StoredFlow, nodes: UiNode[], messages: UiText[], identity?: Identity,
): SelfServiceFlow {
  return {
    id: flow.id,
    type: 'browser',
    expires_at: flow.expires_at.toISOString(),
    issued_at: flow.created_at.toISOString(),
    request_url: flow.request_url ?? `${config.publicUrl}/api/.ory/self-service/${flow.type}/browser`,
    ...(flow.return_to && { return_to: flow.return_to }),
    ui: { action: flowAction(config, flow), method: 'POST', nodes, ...(messages.length > 0 && { messages }) },
    ...(flow.type === 'login' && { refresh: flow.refresh, requested_aal: flow.requested_aal ?? 'aal1' }),
    ...(flow.state && { state: flow.state }),
    ...(identity && { identity }),
  };
}

/** An identity row as Kratos' Identity (preset schema traits). */
export function toIdentity(config: Config, row: IdentityRow): Identity {
  const email = row.traits.email ?? '';
  const addresses = row.addresses.length > 0
    ? row.addresses
    : [{ id: row.id, value: email, verified: false, status: 'pending', verified_at: null, created_at: row.created_at, updated_at: row.updated_at }];
  return {
    id: row.id,
    schema_id: 'default',
    schema_url: `${config.publicUrl}/api/.ory/schemas/default`,
    state: row.state,
    traits: { email, name: { first: row.traits.name?.first ?? '', last: row.traits.name?.last ?? '' } },
    verifiable_addresses: addresses.map((a) => ({
      id: a.id, value: a.value, verified: a.verified, via: 'email' as const,
      status: a.status as 'pending' | 'sent' | 'completed',
      ...(a.verified_at && { verified_at: iso(a.verified_at) }),
      created_at: iso(a.created_at)!, updated_at: iso(a.updated_at)!,
    })),
    recovery_addresses: email
      ? [{ id: row.id, value: email, via: 'email' as const, created_at: iso(row.created_at)!, updated_at: iso(row.updated_at)! }]
      : [],
    metadata_public: null,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** A session row as Kratos' session (devices: the one browser it was opened from). */
export function toKratosSession(row: SessionRow, identity?: Identity): KratosSession {
  return {
    id: row.id,
    active: row.expires_at.getTime() > Date.now(),
    expires_at: row.expires_at.toISOString(),
    authenticated_at: row.authenticated_at.toISOString(),
    issued_at: row.created_at.toISOString(),
    authenticator_assurance_level: row.aal,
    authentication_methods: (row.methods ?? []) as SessionAuthenticationMethod[],
    ...(identity && { identity }),
    devices: [{ id: row.id, ip_address: row.ip, user_agent: row.user_agent, location: null }],
    last_seen_at: row.last_seen_at.toISOString(),
    organization_id: row.organization_id,
  };
}
