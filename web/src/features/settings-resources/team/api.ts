import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../../lib/api-client';
import { toast } from '../../../lib/toast';
import { requiredText } from '../../../lib/validation';

/** Under `['db', relation]`: live updates invalidate by relation. */
export const teamKeys = {
  all: ['db', 'teams'] as const,
  list: () => [...teamKeys.all, 'list'] as const,
  detail: (id: string) => [...teamKeys.all, 'detail', id] as const,
};

export const memberKeys = {
  all: ['db', 'team_members'] as const,
  list: (teamId: string) => [...memberKeys.all, teamId] as const,
};

export const peopleKeys = {
  all: ['db', 'people'] as const,
  pickable: () => [...peopleKeys.all, 'pickable'] as const,
};

/** A person as embedded in team rows (`created_by(...)`, `person:person_id(...)`). */
export const PersonRef = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable().optional(),
  avatar: z.string().nullable(),
});
export type PersonRef = z.infer<typeof PersonRef>;

export const Team = z.object({
  id: z.string(),
  name: z.string(),
  icon: z.string().nullable(),
  source: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
  created_by: PersonRef.nullable(),
  team_members: z.array(z.object({ person_id: z.string() })),
});
export type Team = z.infer<typeof Team>;

export const TeamMember = z.object({
  team_id: z.string(),
  person_id: z.string(),
  source: z.string().nullable(),
  person: PersonRef,
});
export type TeamMember = z.infer<typeof TeamMember>;

/** The Add Team form: spec 001 "Resource form" (name required). */
export const TeamForm = z.object({
  name: requiredText().max(255, 'Name is too long'),
  icon: z.string().trim().max(100, 'Icon is too long'),
});
export type TeamForm = z.infer<typeof TeamForm>;

const TEAM_SELECT = 'id,name,icon,source,created_at,updated_at,created_by(id,name,avatar),team_members(person_id)';

/** Live teams by name, with their creator and member ids (the member count). */
export function useTeams() {
  return useQuery({
    queryKey: teamKeys.list(),
    queryFn: ({ signal }) =>
      api.get('/api/db/teams', {
        query: { select: TEAM_SELECT, deleted_at: 'is.null', order: 'name.asc' },
        schema: z.array(Team),
        signal,
      }),
  });
}

/** One live team; `null` when there is none with that id. */
export function useTeam(id: string) {
  return useQuery({
    queryKey: teamKeys.detail(id),
    queryFn: ({ signal }) =>
      api
        .get('/api/db/teams', {
          query: { select: TEAM_SELECT, id: `eq.${id}`, deleted_at: 'is.null' },
          schema: z.array(Team),
          signal,
        })
        .then((rows) => rows[0] ?? null),
  });
}

/** Creates a team from the UI; answers with the new row so the page can open it. */
export function useCreateTeam() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ form, createdBy }: { form: TeamForm; createdBy: string }) =>
      api
        .post(
          '/api/db/teams',
          { name: form.name, icon: form.icon || null, source: 'UI', spec: {}, created_by: createdBy },
          {
            query: { select: 'id,name' },
            headers: { prefer: 'return=representation' },
            schema: z.array(z.object({ id: z.string(), name: z.string() })),
          },
        )
        .then((rows) => rows[0]),
    onSuccess: () => qc.invalidateQueries({ queryKey: teamKeys.all }),
  });
}

/** Renames a team or changes its icon. */
export function useUpdateTeam(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (form: TeamForm) =>
      api.patch('/api/db/teams', { name: form.name, icon: form.icon || null }, { query: { id: `eq.${id}` } }),
    onSuccess: (_, form) => {
      toast.success(`${form.name} updated successfully`);
      void qc.invalidateQueries({ queryKey: teamKeys.all });
    },
  });
}

/** Soft-deletes a team (spec 001, section 4: deleted_at set to now); its members stay recorded. */
export function useDeleteTeam() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (team: Pick<Team, 'id' | 'name'>) =>
      api.patch('/api/db/teams', { deleted_at: new Date().toISOString() }, { query: { id: `eq.${team.id}` } }),
    onSuccess: (_, team) => {
      toast.success(`${team.name} deleted successfully`);
      void qc.invalidateQueries({ queryKey: teamKeys.all });
    },
  });
}

/** The team's members by name. */
export function useTeamMembers(teamId: string) {
  return useQuery({
    queryKey: memberKeys.list(teamId),
    queryFn: ({ signal }) =>
      api.get('/api/db/team_members', {
        query: {
          team_id: `eq.${teamId}`,
          select: 'team_id,person_id,source,person:person_id(id,name,email,avatar)',
          order: 'person(name).asc',
        },
        schema: z.array(TeamMember),
        signal,
      }),
  });
}

/** Live people who can join a team: persons, not the system or token identities. */
export function usePickablePeople(enabled = true) {
  return useQuery({
    queryKey: peopleKeys.pickable(),
    queryFn: ({ signal }) =>
      api.get('/api/db/people', {
        query: {
          select: 'id,name,email,avatar',
          deleted_at: 'is.null',
          or: '(type.is.null,type.not.in.(system,access_token,agent))',
          order: 'name.asc',
        },
        schema: z.array(PersonRef),
        signal,
      }),
    enabled,
  });
}

function invalidateMembers(qc: ReturnType<typeof useQueryClient>, teamId: string) {
  void qc.invalidateQueries({ queryKey: memberKeys.list(teamId) });
  // the teams list counts members
  void qc.invalidateQueries({ queryKey: teamKeys.all });
}

/** Adds people to the team in one insert (spec 008: '{names} added to the team successfully'). */
export function useAddTeamMembers(teamId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (people: PersonRef[]) =>
      api.post(
        '/api/db/team_members',
        people.map((p) => ({ team_id: teamId, person_id: p.id, source: 'UI' })),
      ),
    onSuccess: (_, people) => {
      toast.success(`${people.map((p) => p.name).join(', ')} added to the team successfully`);
      invalidateMembers(qc, teamId);
    },
  });
}

/** Removes one person from the team. */
export function useRemoveTeamMember(teamId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (member: TeamMember) =>
      api.delete('/api/db/team_members', { query: { team_id: `eq.${teamId}`, person_id: `eq.${member.person_id}` } }),
    onSuccess: (_, member) => {
      toast.success(`${member.person.name} removed from team successfully`);
      invalidateMembers(qc, teamId);
    },
  });
}
