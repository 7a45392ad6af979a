import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { InviteUserResponse, UserSummary, type IdentityState, type InviteUserRequest } from '@contracts/auth';
import { primaryRole, type Role } from '@contracts/rbac';
import { api, ApiError } from '../../lib/api-client';
import { toast } from '../../lib/toast';

/** Under `['auth']`: live updates refresh every auth query at once. */
export const userKeys = {
  all: ['auth', 'users'] as const,
  list: () => [...userKeys.all, 'list'] as const,
};

const UsersResponse = z.object({ payload: z.array(UserSummary) });

/** Every user with an identity (Settings → Users). */
export function useUsers() {
  return useQuery({
    queryKey: userKeys.list(),
    queryFn: ({ signal }) => api.get('/api/auth/users', { schema: UsersResponse, signal }).then((r) => r.payload),
  });
}

/** Invites a user; the answer carries the link to hand them. The dialog shows errors next to the form. */
export function useInviteUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: InviteUserRequest) => api.post('/api/auth/invite_user', body, { schema: InviteUserResponse }),
    onSuccess: () => qc.invalidateQueries({ queryKey: userKeys.all }),
  });
}

export interface UserUpdate {
  user: UserSummary;
  role: Role;
  active: boolean;
}

/**
 * Edit User: replaces the roles with the chosen one and sets the identity state, each only when it changed, so
 * a refusal (the last active admin) names the change that was refused.
 */
export function useUpdateUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ user, role, active }: UserUpdate) => {
      const id = encodeURIComponent(user.id);
      // the form shows the highest role: keep a user's other roles unless that one was changed
      if (role !== primaryRole(user.roles)) await api.post(`/api/auth/${id}/properties`, { role });
      const state: IdentityState = active ? 'active' : 'inactive';
      if (state !== user.state) await api.post(`/api/auth/${id}/update_state`, { state });
    },
    onSuccess: (_, { user }) => toast.success(`${user.name} updated successfully`),
    onSettled: () => qc.invalidateQueries({ queryKey: userKeys.all }),
  });
}

/** Deletes a user (the server refuses to remove the last active admin or yourself). */
export function useDeleteUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (user: UserSummary) => api.delete(`/api/people/${encodeURIComponent(user.id)}`),
    onSuccess: () => {
      toast.success('user deleted successfully');
      void qc.invalidateQueries({ queryKey: userKeys.all });
      // the person also leaves people pickers and team member lists
      void qc.invalidateQueries({ queryKey: ['db', 'people'] });
      void qc.invalidateQueries({ queryKey: ['db', 'team_members'] });
    },
  });
}

/** Second factors an admin's reset removes (Kratos credential types). */
export const SECOND_FACTOR_TYPES = ['totp', 'lookup_secret', 'webauthn'] as const;

/** Edit User → Sign out everywhere: ends every session of the person (admins, write on identities). */
export function useSignOutUser() {
  return useMutation({
    mutationFn: (user: UserSummary) =>
      api.delete(`/api/.ory/admin/identities/${encodeURIComponent(user.id)}/sessions`),
    onSuccess: (_, user) => toast.success(`${user.name} was signed out everywhere`),
  });
}

/**
 * Edit User → Reset second factor: removes the person's authenticator app, recovery codes and security keys (their
 * passkeys stay: a first factor); the next sign-in asks for the password only. A type they never set up is skipped.
 */
export function useResetSecondFactor() {
  return useMutation({
    mutationFn: async (user: UserSummary) => {
      const id = encodeURIComponent(user.id);
      for (const type of SECOND_FACTOR_TYPES) {
        try {
          await api.delete(`/api/.ory/admin/identities/${id}/credentials/${type}`);
        } catch (err) {
          // a factor they never set up, or one this server does not offer
          if (!(err instanceof ApiError && (err.status === 404 || err.status === 400))) throw err;
        }
      }
    },
    onSuccess: (_, user) => toast.success(`${user.name}'s second factor was reset`),
  });
}

/** A row of auth_events (sign-in activity). */
const AuthEventRow = z.object({
  id: z.string(),
  type: z.string(),
  method: z.string().nullable().optional(),
  success: z.boolean(),
  ip: z.string().nullable().optional(),
  user_agent: z.string().nullable().optional(),
  created_at: z.string(),
});

/** A person's latest 50 sign-in events, for Edit User (admins read everyone's through /api/db). */
export function usePersonActivity(personId: string) {
  return useQuery({
    queryKey: [...userKeys.all, 'activity', personId],
    queryFn: ({ signal }) =>
      api.get('/api/db/auth_events', {
        signal,
        schema: z.array(AuthEventRow),
        query: {
          select: 'id,type,method,success,ip,user_agent,created_at',
          person_id: `eq.${personId}`,
          order: 'created_at.desc',
          limit: 50,
        },
      }),
  });
}
