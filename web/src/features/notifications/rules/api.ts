import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { NOTIFICATION_TYPES } from '@contracts/connections';
import { api, contentRangeTotal } from '../../../lib/api-client';
import { toast } from '../../../lib/toast';
import { RulePerson, RuleRow, RULE_SORT_COLUMNS, type ruleWriteBody } from './model';

/** Under `['db', 'notifications']`: live updates of the relation refresh the list and the open rule. */
export const ruleKeys = {
  all: ['db', 'notifications'] as const,
  page: (page: RulePage) => [...ruleKeys.all, 'page', page] as const,
  one: (id: string) => [...ruleKeys.all, 'one', id] as const,
};

export interface RulePage {
  pageIndex: number;
  pageSize: number;
  sortBy: string;
  desc: boolean;
}

const AVATAR = 'id,name,avatar,email';
/** The reference UI's select on notifications_summary (flanksource-ui services/notifications). */
export const RULE_SELECT = `*,person:person_id(${AVATAR}),team:team_id(id,name,icon),created_by(${AVATAR})`;

/** The list query for a page: `order`, `limit`, `offset` as the reference sends them. */
export function ruleListQuery(page: RulePage) {
  const column = RULE_SORT_COLUMNS[page.sortBy] ?? 'created_at';
  return {
    select: RULE_SELECT,
    order: `${column}.${page.desc ? 'desc' : 'asc'}`,
    limit: page.pageSize,
    offset: page.pageIndex * page.pageSize,
  };
}

/** A page of rules with the exact total (`Prefer: count=exact`). */
export function useRules(page: RulePage) {
  return useQuery({
    queryKey: ruleKeys.page(page),
    queryFn: async ({ signal }) => {
      let total: number | null = null;
      const rows = await api.get('/api/db/notifications_summary', {
        query: ruleListQuery(page),
        headers: { prefer: 'count=exact' },
        schema: z.array(RuleRow),
        signal,
        onHeaders: (h) => (total = contentRangeTotal(h)),
      });
      return { rows, total: total ?? rows.length };
    },
    placeholderData: keepPreviousData,
  });
}

/** One rule by id (the `?id=` link); null when there is none. */
export function useRule(id: string | undefined) {
  return useQuery({
    queryKey: ruleKeys.one(id ?? ''),
    enabled: !!id,
    queryFn: async ({ signal }) => {
      const rows = await api.get('/api/db/notifications_summary', {
        query: { select: RULE_SELECT, id: `eq.${id}` },
        schema: z.array(RuleRow),
        signal,
      });
      return rows[0] ?? null;
    },
  });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => void qc.invalidateQueries({ queryKey: ruleKeys.all });
}

type WriteBody = ReturnType<typeof ruleWriteBody>;

/** The form shows a 400 on its field itself: silent. */
export function useSaveRule() {
  const refresh = useRefresh();
  return useMutation({
    meta: { silent: true },
    mutationFn: ({ id, body, createdBy }: { id?: string; body: WriteBody; createdBy: string }) =>
      id
        ? api.patch('/api/db/notifications', body, { query: { id: `eq.${id}` } })
        : api.post('/api/db/notifications', { ...body, source: 'UI', created_by: createdBy }),
    onSuccess: (_r, { id }) => {
      toast.success(id ? 'Notification updated successfully' : 'Notification created successfully');
      refresh();
    },
  });
}

/** Soft delete, as the reference UI does it. */
export function useDeleteRule() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (id: string) => api.patch('/api/db/notifications', { deleted_at: new Date().toISOString() }, { query: { id: `eq.${id}` } }),
    onSuccess: () => {
      toast.success('Notification deleted successfully');
      refresh();
    },
  });
}

const Option = z.array(RulePerson);

/** People who can receive email (no system, token or agent identities). */
export function usePeopleOptions() {
  return useQuery({
    queryKey: ['db', 'people', 'notification-recipients'] as const,
    queryFn: ({ signal }) =>
      api.get('/api/db/people', {
        query: {
          select: 'id,name,email',
          deleted_at: 'is.null',
          and: '(or(type.is.null,type.not.in.(system,access_token,agent)))',
          order: 'name.asc',
          limit: 500,
        },
        schema: Option,
        signal,
      }),
  });
}

export function useTeamOptions() {
  return useQuery({
    queryKey: ['db', 'teams', 'notification-recipients'] as const,
    queryFn: ({ signal }) =>
      api.get('/api/db/teams', {
        query: { select: 'id,name,icon', deleted_at: 'is.null', order: 'name.asc', limit: 500 },
        schema: Option,
        signal,
      }),
  });
}

const ConnectionOption = z.object({ id: z.string(), name: z.string(), namespace: z.string().nullish(), type: z.string() });

/** Connections of category notification, as `connection://namespace/name` references. */
export function useNotificationConnections() {
  return useQuery({
    queryKey: ['db', 'connections', 'notification-options'] as const,
    queryFn: async ({ signal }) => {
      const rows = await api.get('/api/db/connections', {
        query: { select: 'id,name,namespace,type', deleted_at: 'is.null', order: 'name.asc', limit: 500 },
        schema: z.array(ConnectionOption),
        signal,
      });
      return rows
        .filter((c) => NOTIFICATION_TYPES.includes(c.type))
        .map((c) => ({ value: `connection://${c.namespace || 'default'}/${c.name}`, label: `${c.name} (${c.type})` }));
    },
  });
}
