import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../../config.js';
import type { LoginCandidate } from '../queries.js';
import type {
  Aal, FlowType, SessionAuthenticationMethod, UiNode, UiNodeGroup, UiText,
} from '../../../contracts/identity.js';

/**
 * The seams of the sign-in flows (issue 17). The engine (flows/engine.ts, routes under /api/.ory) stores flows,
 * checks CSRF and expiry, and dispatches to one FlowKind per flow type; login and settings ask every Factor in the
 * registry (factors/index.ts) for their nodes and hand a submission to the factor its `method` names.
 */

/** A row of auth_flows as the engine hands it to kinds and factors. */
export interface StoredFlow {
  id: string;
  type: FlowType;
  state: string | null;
  person_id: string | null;
  session_id: string | null;
  return_to: string | null;
  requested_aal: Aal | null;
  refresh: boolean;
  data: Record<string, unknown>;
  attempts: number;
  request_url: string | null;
  created_at: Date;
  expires_at: Date;
}

/** What a kind or factor is given for one request on a flow. */
export interface FlowContext {
  db: pg.Pool;
  config: Config;
  req: FastifyRequest;
  reply: FastifyReply;
  flow: StoredFlow;
  /** The signed-in person (settings, login at aal2 or refresh), else null. */
  personId: string | null;
  /** The caller's session row id and how it was authenticated, when signed in. */
  session: { id: string; aal: Aal; authenticatedAt: Date } | null;
  /** Merges into flow.data and saves it (the engine also bumps updated_at). */
  saveData(patch: Record<string, unknown>): Promise<void>;
  /** Counts a wrong answer in this flow; returns the new count (the engine ends the flow past its limit). */
  countAttempt(): Promise<number>;
  /** A first-factor login's password candidates, read with the flow (selectFlowAndCandidates) for `identifier`. */
  loginCandidates?: { identifier: string; rows: LoginCandidate[] };
}

/** A wrong or missing answer: the flow is shown again (HTTP 400) with these messages at the named field or on top. */
export class FlowValidationError extends Error {
  constructor(readonly messages: UiText[], readonly field?: string) {
    super(messages.map((m) => m.text).join('; '));
  }
}

/** What a submission leads to. */
export type FlowOutcome =
  /** show the flow again (200), with its new state and these flow-level messages */
  | { kind: 'show'; messages?: UiText[] }
  /** a factor was proven: open or upgrade the session (login, registration, recovery's privileged session) */
  | { kind: 'session'; personId: string; aal: Aal; method: SessionAuthenticationMethod['method']; continueTo?: string }
  /** the browser must go elsewhere: JSON clients get 422 browser_location_change_required with redirect_browser_to */
  | { kind: 'redirect'; to: string };

/** One self-service flow type: login, registration, recovery, verification, settings. */
export interface FlowKind {
  type: FlowType;
  /** Fills a new flow's state and data (e.g. settings binds the person; recovery starts at choose_method). */
  init?(ctx: FlowContext): Promise<{ state?: string; data?: Record<string, unknown> }>;
  /** The flow's nodes as it stands (the engine adds csrf_token). */
  nodes(ctx: FlowContext): Promise<UiNode[]>;
  /** A POST to the flow (body already parsed from JSON or a plain form; csrf checked). */
  submit(ctx: FlowContext, body: Record<string, unknown>): Promise<FlowOutcome>;
}

/** A way to prove who you are, for login (first or second factor) and the settings flow (enrol, remove). */
export interface Factor {
  method: SessionAuthenticationMethod['method'];
  group: UiNodeGroup;
  /** The level it proves: password aal1; totp, lookup_secret, webauthn aal2; passkey aal1 (aal2 when user-verified). */
  aal: Aal;
  /** Whether the person has it set up (highest-available assurance asks for aal2 when any aal2 factor is). */
  enrolled(db: pg.Pool | pg.PoolClient, personId: string): Promise<boolean>;
  /**
   * `enrolled` as an SQL boolean expression, `person` being the SQL expression of the person's id (e.g. `$1`), so
   * the engine asks every factor in one statement (sign-in, the principal's assurance). `factors` is the registry.
   * Without it the engine calls `enrolled` (one query per factor).
   */
  enrolledSql?(person: string, factors: readonly Factor[]): string;
  /** Nodes offered in a login flow (first factor when ctx.personId is null; second when requested_aal is aal2). */
  loginNodes?(ctx: FlowContext): Promise<UiNode[]>;
  /** Checks a login submission (`method` = this method); throws FlowValidationError on a wrong answer. */
  login?(ctx: FlowContext, body: Record<string, unknown>): Promise<{ personId: string; aal: Aal }>;
  /** Nodes in the settings flow (enrol, list, remove). */
  settingsNodes?(ctx: FlowContext): Promise<UiNode[]>;
  /** A settings submission (`method` = this method); the engine has checked the session is privileged. */
  settings?(ctx: FlowContext, body: Record<string, unknown>): Promise<FlowOutcome>;
  /** Admin reset from Edit User (and "This wasn't me"): removes this factor for the person. */
  reset?(db: pg.PoolClient, personId: string): Promise<void>;
}
