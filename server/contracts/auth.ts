import { z } from 'zod';
import { Role, ROLES } from './rbac.js';

/**
 * A `return_to` target: only a same-origin path. Starts with exactly one `/`, no backslash (browsers read `/\x` as
 * `//x`), no control characters (browsers drop tabs and newlines, turning `/\t/x` into `//x`).
 */
export const ReturnTo = z
  .string()
  .max(2048, 'return_to is too long')
  .refine((v) => /^\/(?![/\\])/.test(v) && !/[\\\u0000-\u001f\u007f]/.test(v), {
    error: 'return_to must be a path on this site (starting with a single /)',
  });

/** Login form; `username` is an email or a name, case-insensitive. */
export const LoginRequest = z.object({
  username: z.string({ error: 'username is required' }).trim().min(1, 'username is required').max(320),
  // the upper bound keeps a hostile client from making argon2 hash megabytes
  password: z.string({ error: 'password is required' }).min(1, 'password is required').max(1024),
  return_to: ReturnTo.nullish().transform((v) => v ?? undefined),
});
export type LoginRequest = z.infer<typeof LoginRequest>;

/** The signed-in person as login, registration and whoami describe it (never a secret). */
export const SessionUser = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
});
export type SessionUser = z.infer<typeof SessionUser>;

/** Answer to login and registration; the session itself travels in the httpOnly `session` cookie. */
export const LoginResponse = z.object({
  message: z.literal('success'),
  /** Echo in `X-CSRF-Token` on every POST/PUT/PATCH/DELETE made with the cookie. */
  csrf_token: z.string(),
  return_to: z.string().optional(),
  user: SessionUser,
  roles: z.array(Role),
  expires_at: z.string(),
});
export type LoginResponse = z.infer<typeof LoginResponse>;

export const CsrfResponse = z.object({ csrf_token: z.string() });

/** Permission as the reference reports it: `{subject, object, action}`; actions here are read and write. */
export const Permission = z.object({
  subject: z.string(),
  object: z.string(),
  action: z.enum(['read', 'write']),
});
export type Permission = z.infer<typeof Permission>;

/** A `people` row as the API shows it. */
export const PersonRow = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  avatar: z.string().nullable(),
  type: z.string().nullable(),
  team_id: z.string().nullable(),
  organization: z.string().nullable(),
  title: z.string().nullable(),
  phone: z.string().nullable(),
  properties: z.unknown().nullable(),
  external_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
  last_login: z.string().nullable(),
});
export type PersonRow = z.infer<typeof PersonRow>;

/** Hosted mode: an organisation (from the provider's organisation claim) and the caller's roles in it. */
export const Organization = z.object({
  id: z.string(),
  /** The organisation's id in the provider's claim (Keycloak's key, or the name when the claim is a list). */
  external_id: z.string(),
  name: z.string(),
  roles: z.array(Role),
});
export type Organization = z.infer<typeof Organization>;

export const WhoamiResponse = z.object({
  message: z.literal('success'),
  payload: z.object({
    user: PersonRow,
    roles: z.array(Role),
    permissions: z.array(Permission),
    features: z.record(z.string(), z.boolean()),
    hostname: z.string(),
    /** Hosted mode (AUTH_MODE=oidc): the session's active organisation, null when none is chosen. */
    organization: Organization.nullable().optional(),
  }),
});
export type WhoamiResponse = z.infer<typeof WhoamiResponse>;

/** A duration such as `30d`, `24h`, `1h30m`, `2w`, `1y` (units s, m, h, d, w, y). */
export const Expiry = z
  .string()
  .trim()
  .regex(/^(\d{1,6}(s|m|h|d|w|y))+$/, 'expiry must be a duration such as 24h, 30d, 1y');

export const CreateTokenRequest = z.object({
  name: z
    .string({ error: 'name is required' })
    .trim()
    .min(1, 'name is required')
    .max(100, 'name is too long')
    .regex(/^[\w .:@-]+$/, 'name may contain letters, digits, spaces and . : @ _ -'),
  expiry: Expiry.optional(),
  auto_renew: z.boolean().default(false),
});
export type CreateTokenRequest = z.infer<typeof CreateTokenRequest>;

export const CreateTokenResponse = z.object({
  message: z.literal('success'),
  payload: z.object({ token: z.string(), id: z.string(), expires_at: z.string().nullable() }),
});

/** An access token as listed: never its value. */
export const AccessTokenSummary = z.object({
  id: z.string(),
  name: z.string(),
  auto_renew: z.boolean(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  person: z.object({ id: z.string(), name: z.string() }),
  created_by: z.object({ id: z.string(), name: z.string(), email: z.string().nullable() }).nullable(),
});
export type AccessTokenSummary = z.infer<typeof AccessTokenSummary>;

const name = (what: string) =>
  z
    .string({ error: `Please provide valid ${what} name` })
    .trim()
    .min(1, `Please provide valid ${what} name`)
    .max(100, `Please provide valid ${what} name`);

/** The Invite User form (spec 001, section 5 messages). */
export const InviteUserRequest = z.object({
  firstName: name('first'),
  lastName: name('last'),
  email: z
    .string({ error: 'Please provide valid email' })
    .trim()
    .min(1, 'Please provide valid email')
    .max(320, 'Please provide valid email')
    .pipe(z.email({ error: 'Entered value does not match email format' })),
  role: z.enum(ROLES, { error: 'Please select any role' }),
});
export type InviteUserRequest = z.infer<typeof InviteUserRequest>;

export const InviteUserResponse = z.object({ link: z.string(), expires_at: z.string() });

export const RegistrationRequest = z.object({
  invite: z.string({ error: 'invite is required' }).min(1, 'invite is required').max(200),
  password: z
    .string({ error: 'password is required' })
    .min(8, 'password must be at least 8 characters')
    .max(1024, 'password is too long'),
});
export type RegistrationRequest = z.infer<typeof RegistrationRequest>;

export const IdentityState = z.enum(['active', 'inactive'], { error: 'state must be active or inactive' });
export type IdentityState = z.infer<typeof IdentityState>;

/** A row of the Users settings table. */
export const UserSummary = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  roles: z.array(Role),
  state: IdentityState,
  created_at: z.string(),
  state_changed_at: z.string().nullable(),
  last_login: z.string().nullable(),
  traits: z.object({ email: z.string(), name: z.object({ first: z.string(), last: z.string() }).partial() }).loose(),
});
export type UserSummary = z.infer<typeof UserSummary>;

const roleList = z.array(z.enum(ROLES, { error: 'unknown role' })).max(ROLES.length);

/** Edit User: `{role}` (the form's single choice) or `{roles: [...]}`; either replaces the person's roles. */
export const UpdatePropertiesRequest = z.union(
  [z.object({ role: z.enum(ROLES, { error: 'Please select any role' }) }), z.object({ roles: roleList })],
  { error: 'Please select any role' },
);
export type UpdatePropertiesRequest = z.infer<typeof UpdatePropertiesRequest>;

export const UpdateStateRequest = z.object({ id: z.string().optional(), state: IdentityState });

/** `POST /api/rbac/:id/update_role`: adds roles, as the reference does. */
export const UpdateRoleRequest = z.object({ roles: roleList.min(1, 'roles must not be empty') });

/** `POST /api/auth/password` (Your Profile): the current password, and a new one as registration requires. */
export const ChangePasswordRequest = z.object({
  current_password: z
    .string({ error: 'current password is required' })
    .min(1, 'current password is required')
    .max(1024, 'current password is incorrect'),
  new_password: z
    .string({ error: 'new password is required' })
    .min(8, 'password must be at least 8 characters')
    .max(1024, 'password is too long'),
});
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequest>;

/** `PATCH /api/auth/profile` (Your Profile): the name, as the Invite User form spells it. */
export const UpdateProfileRequest = z.object({ firstName: name('first'), lastName: name('last') });
export type UpdateProfileRequest = z.infer<typeof UpdateProfileRequest>;

export const UpdateProfileResponse = z.object({ message: z.literal('success'), payload: z.object({ user: SessionUser }) });
export type UpdateProfileResponse = z.infer<typeof UpdateProfileResponse>;

/** `GET /api/auth/organizations`: the caller's organisations and the session's active one. */
export const OrganizationsResponse = z.object({
  organizations: z.array(Organization),
  active_organization_id: z.string().nullable(),
  /**
   * The provider sent an organisation claim at the last sign-in: the gate asks for a choice when several and none is
   * active, and shows "not a member" when the list is empty. False: the provider has no organisations (console-wide
   * roles).
   */
  required: z.boolean(),
});
export type OrganizationsResponse = z.infer<typeof OrganizationsResponse>;

export const SwitchOrganizationRequest = z.object({
  organization_id: z.uuid({ error: 'organization_id must be a uuid' }),
});

/** `GET /api/auth/config` (public): which sign-in the login page offers. */
export const AuthConfigResponse = z.object({
  mode: z.enum(['local', 'oidc']),
  oidc: z.object({ display_name: z.string(), login_url: z.string() }).optional(),
  /** Who may use the local password form: everyone in local mode; in oidc mode OIDC_LOCAL_LOGIN. */
  local_login: z.enum(['all', 'admins', 'none']),
});
export type AuthConfigResponse = z.infer<typeof AuthConfigResponse>;
