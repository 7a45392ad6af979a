/**
 * Sign-in flows, Kratos-compatible (issue 17): the shapes `/api/.ory` answers with, so clients of Ory's SDK and the
 * reference UI work unchanged. Field names follow Kratos' frontend API; types only, shared by server and web.
 */

export type FlowType = 'login' | 'registration' | 'recovery' | 'verification' | 'settings';
export type Aal = 'aal1' | 'aal2';

/** A node's group: which method it belongs to (Kratos' groups, plus `profile` for name and email). */
export type UiNodeGroup =
  | 'default' | 'password' | 'oidc' | 'profile' | 'link' | 'code' | 'totp' | 'lookup_secret' | 'webauthn' | 'passkey';

/** A message (flow-level or at a field). Ids are Kratos': 1xxxxxx info, 4xxxxxx errors (see MESSAGE_IDS). */
export interface UiText {
  id: number;
  text: string;
  type: 'info' | 'error' | 'success';
  context?: Record<string, unknown>;
}

export interface UiNodeInputAttributes {
  node_type: 'input';
  name: string;
  type: 'text' | 'password' | 'number' | 'checkbox' | 'hidden' | 'email' | 'tel' | 'submit' | 'button' | 'datetime-local' | 'date' | 'url';
  value?: unknown;
  required?: boolean;
  disabled?: boolean;
  autocomplete?: string;
  pattern?: string;
  /** A script the reference UI runs on click (WebAuthn); this console's web client uses `onclickTrigger`. */
  onclick?: string;
  onclickTrigger?: string;
  maxlength?: number;
}
export interface UiNodeTextAttributes { node_type: 'text'; id: string; text: UiText }
export interface UiNodeImageAttributes { node_type: 'img'; id: string; src: string; width: number; height: number }
export interface UiNodeAnchorAttributes { node_type: 'a'; id: string; href: string; title: UiText }
export interface UiNodeScriptAttributes {
  node_type: 'script'; id: string; src: string; async: boolean; referrerpolicy: string; crossorigin: string;
  integrity: string; type: string; nonce: string;
}
export type UiNodeAttributes =
  | UiNodeInputAttributes | UiNodeTextAttributes | UiNodeImageAttributes | UiNodeAnchorAttributes | UiNodeScriptAttributes;

export interface UiNode {
  type: 'input' | 'text' | 'img' | 'a' | 'script';
  group: UiNodeGroup;
  attributes: UiNodeAttributes;
  messages: UiText[];
  meta: { label?: UiText };
}

export interface UiContainer {
  /** Where the form posts: `<PUBLIC_URL>/api/.ory/self-service/<type>?flow=<id>`. */
  action: string;
  method: 'POST' | 'GET';
  nodes: UiNode[];
  messages?: UiText[];
}

/** A self-service flow as GET /self-service/<type>/flows?id= returns it. */
export interface SelfServiceFlow {
  id: string;
  type: 'browser' | 'api';
  expires_at: string;
  issued_at: string;
  request_url: string;
  return_to?: string;
  ui: UiContainer;
  /** login */
  refresh?: boolean;
  requested_aal?: Aal;
  /** recovery, verification, settings: choose_method → sent_email → passed_challenge; settings: show_form → success */
  state?: string;
  /** settings */
  identity?: Identity;
  /** login and registration in hosted mode carry the organisation */
  organization_id?: string | null;
}

export interface VerifiableAddress {
  id: string;
  value: string;
  verified: boolean;
  via: 'email';
  status: 'pending' | 'sent' | 'completed';
  verified_at?: string;
  created_at: string;
  updated_at: string;
}

/** Kratos' identity with the preset schema's traits (email, name.first, name.last). */
export interface Identity {
  id: string;
  schema_id: 'default';
  schema_url: string;
  state: 'active' | 'inactive';
  traits: { email: string; name: { first: string; last: string } };
  verifiable_addresses: VerifiableAddress[];
  recovery_addresses: { id: string; value: string; via: 'email'; created_at: string; updated_at: string }[];
  metadata_public: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}

export interface SessionAuthenticationMethod {
  method: 'password' | 'totp' | 'lookup_secret' | 'webauthn' | 'passkey' | 'code' | 'link_recovery' | 'code_recovery' | 'oidc';
  aal: Aal;
  completed_at: string;
  provider?: string;
}

export interface SessionDevice { id: string; ip_address: string | null; user_agent: string | null; location: string | null }

/** GET /sessions/whoami, and each row of GET /sessions (without identity there unless expanded). */
export interface KratosSession {
  id: string;
  active: boolean;
  expires_at: string;
  authenticated_at: string;
  issued_at: string;
  authenticator_assurance_level: Aal;
  authentication_methods: SessionAuthenticationMethod[];
  identity?: Identity;
  devices: SessionDevice[];
  /** Beyond Kratos: last seen (the profile's "last active") and the active organisation in hosted mode. */
  last_seen_at?: string;
  organization_id?: string | null;
}

/** Kratos' generic error body, with `redirect_browser_to` on session_* and browser_location_change_required. */
export interface KratosErrorBody {
  error: {
    id?: KratosErrorId;
    code: number;
    status: string;
    reason?: string;
    message: string;
    details?: Record<string, unknown>;
  };
  redirect_browser_to?: string;
}

/** The error ids of spec 001 §8, the web maps each to what the browser does. */
export const KRATOS_ERROR_IDS = [
  'session_aal2_required',
  'session_already_available',
  'session_refresh_required',
  'session_inactive',
  'self_service_flow_return_to_forbidden',
  'self_service_flow_expired',
  'security_csrf_violation',
  'security_identity_mismatch',
  'browser_location_change_required',
] as const;
export type KratosErrorId = (typeof KRATOS_ERROR_IDS)[number];

/** Kratos' message ids this console uses (texts in server/modules/auth/flows/messages.ts). */
export const MESSAGE_IDS = {
  loginWith: 1010001,
  loginReauth: 1010003,
  loginMfa: 1010004,
  registrationSignUp: 1040001,
  settingsSaved: 1050001,
  recoverySent: 1060002,
  recoveryCodeSent: 1060003,
  verificationSent: 1080001,
  verificationDone: 1080002,
  verificationCodeSent: 1080003,
  missingField: 4000002,
  invalidCredentials: 4000006,
  totpInvalid: 4000008,
  lookupInvalid: 4000016,
  lookupUsed: 4000012,
  addressNotVerified: 4000010,
  flowExpired: 4010001,
  recoveryLinkInvalid: 4060004,
  recoveryCodeInvalid: 4060006,
  verificationLinkInvalid: 4070001,
  verificationCodeInvalid: 4070006,
} as const;
