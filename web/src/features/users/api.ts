import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { InviteUserResponse, UserSummary, type IdentityState, type InviteUserRequest } from '@contracts/auth';
import { primaryRole, type Role } from '@contracts/rbac';
import { api } from '../../lib/api-client';
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
