import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import type { KratosSession, SelfServiceFlow, UiText } from '@contracts/identity';
import { api, ApiError, errorMessage } from '../../lib/api-client';
import { csrfToken, flowBody, kratosError } from './flow-nodes';

/** Under `['auth']` (but the settings flow): live updates and sign-outs refresh or clear every auth query at once. */
export const profileKeys = {
  all: ['auth', 'profile'] as const,
  // Outside `['auth']` on purpose: a live change of people or identities (anyone's sign-in touches last_login) would
  // otherwise fetch a new settings flow, whose new id remounts the forms and closes an open dialog mid-edit. The flow
  // is replaced by each of this page's own submits; sign-outs clear every query.
  settingsFlow: () => ['settings-flow'] as const,
  sessions: () => [...profileKeys.all, 'sessions'] as const,
  activity: (personId: string) => [...profileKeys.all, 'activity', personId] as const,
};
// whoami holds the signed-in user's name (the auth feature's key; features do not import each other)
const SESSION_KEY = ['auth', 'whoami'] as const;

const ORY = '/api/.ory';

/** Spec 001 §8: what a section shows when the flow had to start again. */
export const FLOW_TEXTS = {
  expired: 'Your interaction expired, please fill out the form again.',
  csrf: 'A security violation was detected, please fill out the form again.',
} as const;

/** How often the sessions list refreshes while the page is open (it also refreshes on focus). */
export const SESSIONS_REFRESH_MS = 15_000;

/**
 * Your Profile → name and email: the spec's user-form texts (001 §5). An email change is pending until the new address
 * is verified.
 */
export const ProfileForm = z.object({
  firstName: z.string().trim().min(1, 'Please provide valid first name').max(100, 'Please provide valid first name'),
  lastName: z.string().trim().min(1, 'Please provide valid last name').max(100, 'Please provide valid last name'),
  email: z
    .string()
    .trim()
    .min(1, 'Please provide valid email')
    .pipe(z.email({ error: 'Entered value does not match email format' })),
});
export type ProfileForm = z.infer<typeof ProfileForm>;

/** Your Profile → password: the new one twice (the settings flow asks no current password: the session is fresh). */
export const PasswordForm = z
  .object({
    newPassword: z.string().min(8, 'Use at least 8 characters').max(256, 'At most 256 characters'),
    confirmPassword: z.string(),
  })
  .refine((v) => v.newPassword === v.confirmPassword, { path: ['confirmPassword'], error: 'Passwords do not match' });
export type PasswordForm = z.infer<typeof PasswordForm>;

/**
 * The settings flow (Kratos' GET /self-service/settings/browser): one per visit of the page. Every section reads its
 * nodes and posts to it; each answer replaces it in the cache.
 */
export function useSettingsFlow() {
  return useQuery({
    queryKey: profileKeys.settingsFlow(),
    queryFn: ({ signal }) => api.get<SelfServiceFlow>(`${ORY}/self-service/settings/browser`, { signal }),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    retry: false,
  });
}

/** A refused submission: the messages to show in the section (at fields when the flow has them there). */
export class SettingsError extends Error {
  constructor(readonly messages: UiText[]) {
    super(messages.map((m) => m.text).join(' ') || 'An error occurred');
  }
}

/** Where the browser must go to continue (Kratos' redirect_browser_to): a fresh sign-in for a privileged change. */
export function goToBrowserLocation(to: string): void {
  window.location.assign(to);
}

function errorText(text: string): UiText {
  return { id: 0, text, type: 'error' };
}

/**
 * Posts one method of the settings flow (`profile`, `password`, `totp`, `lookup_secret`, `webauthn`, `passkey`). The
 * answer (the flow, with its `1050001` saved message) replaces the cached flow. A 400 flow shows its messages; an
 * expired flow or a CSRF refusal starts a new flow and says so; 403 `session_refresh_required` (not privileged any
 * more) and 422 `browser_location_change_required` go where the server says.
 */
export function useSubmitSettings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (body: Record<string, unknown>): Promise<SelfServiceFlow> => {
      const flow = qc.getQueryData<SelfServiceFlow>(profileKeys.settingsFlow());
      if (!flow) throw new SettingsError([errorText('The page is still loading, try again.')]);
      try {
        return await api.post<SelfServiceFlow>(
          `${ORY}/self-service/settings?flow=${encodeURIComponent(flow.id)}`,
          { csrf_token: csrfToken(flow), ...body },
        );
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        const shown = flowBody(err.body);
        if (shown) {
          qc.setQueryData(profileKeys.settingsFlow(), shown);
          const messages = [...(shown.ui.messages ?? []), ...shown.ui.nodes.flatMap((n) => n.messages ?? [])];
          throw new SettingsError(messages.filter((m) => m.type === 'error'));
        }
        const kratos = kratosError(err.body);
        if (kratos?.redirect_browser_to) {
          goToBrowserLocation(kratos.redirect_browser_to);
          throw new SettingsError([]);
        }
        const id = kratos?.error.id;
        if (err.status === 410 || id === 'self_service_flow_expired' || id === 'security_csrf_violation') {
          await qc.invalidateQueries({ queryKey: profileKeys.settingsFlow() });
          throw new SettingsError([errorText(id === 'security_csrf_violation' ? FLOW_TEXTS.csrf : FLOW_TEXTS.expired)]);
        }
        throw new SettingsError([errorText(kratos?.error.reason ?? kratos?.error.message ?? errorMessage(err))]);
      }
    },
    onSuccess: (flow) => {
      qc.setQueryData(profileKeys.settingsFlow(), flow);
      // the name in the shell's greeting and the factors a session needs may have changed
      void qc.invalidateQueries({ queryKey: SESSION_KEY });
    },
    meta: { silent: true },
  });
}

/** The signed-in session (the "This device" marker). */
export function useCurrentSession() {
  return useQuery({
    queryKey: [...profileKeys.sessions(), 'whoami'],
    queryFn: ({ signal }) => api.get<KratosSession>(`${ORY}/sessions/whoami`, { signal }),
    refetchOnWindowFocus: true,
  });
}

/** Your other sessions (Kratos lists all but the current one), live: refetched on focus and every 15 s. */
export function useSessions(refreshMs = SESSIONS_REFRESH_MS) {
  return useQuery({
    queryKey: profileKeys.sessions(),
    queryFn: ({ signal }) => api.get<KratosSession[]>(`${ORY}/sessions`, { signal }),
    refetchOnWindowFocus: true,
    refetchInterval: refreshMs,
  });
}

/** Ends one of your sessions: that browser lands on /login at its next call. */
export function useRevokeSession() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(`${ORY}/sessions/${encodeURIComponent(id)}`),
    onSettled: () => qc.invalidateQueries({ queryKey: profileKeys.sessions() }),
    meta: { silent: true },
  });
}

/** Ends every session but this one. */
export function useRevokeOtherSessions() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<{ count?: number } | undefined>(`${ORY}/sessions`),
    onSettled: () => qc.invalidateQueries({ queryKey: profileKeys.sessions() }),
    meta: { silent: true },
  });
}

/** A row of auth_events (sign-in activity), as /api/db returns it. */
export const AuthEvent = z.object({
  id: z.string(),
  person_id: z.string().nullable(),
  session_id: z.string().nullable().optional(),
  type: z.string(),
  method: z.string().nullable().optional(),
  aal: z.string().nullable().optional(),
  success: z.boolean(),
  ip: z.string().nullable().optional(),
  user_agent: z.string().nullable().optional(),
  created_at: z.string(),
});
export type AuthEvent = z.infer<typeof AuthEvent>;

/** How many of the latest events the activity tables show. */
export const ACTIVITY_LIMIT = 50;

/** A person's latest sign-in activity (your own; an admin's Edit User reads anyone's). */
export function useSignInActivity(personId: string) {
  return useQuery({
    queryKey: profileKeys.activity(personId),
    queryFn: ({ signal }) =>
      api.get('/api/db/auth_events', {
        signal,
        schema: z.array(AuthEvent),
        query: {
          select: 'id,person_id,session_id,type,method,aal,success,ip,user_agent,created_at',
          person_id: `eq.${personId}`,
          order: 'created_at.desc',
          limit: ACTIVITY_LIMIT,
        },
      }),
    refetchOnWindowFocus: true,
  });
}

/**
 * "This wasn't me": ends every session (this one too); when recovery can reach a verified address the password is
 * removed too, so the next sign-in goes through "Forgot your password?" (server/modules/auth/not-me-routes.ts).
 */
export function useNotMe() {
  return useMutation({
    mutationFn: () => api.post<{ message: string; sessions_ended: number; password_reset_required: boolean }>('/api/auth/not-me', {}),
    meta: { silent: true },
  });
}
