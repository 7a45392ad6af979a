import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useLocation, useSearch } from 'wouter';
import type { FlowType, KratosSession, SelfServiceFlow } from '@contracts/identity';
import { api, setCsrfToken } from '../../lib/api-client';
import { toast } from '../../lib/toast';
import { browserTarget, flowErrorAction, isFlow, type FlowErrorAction } from './flow-errors';

/** The Kratos-compatible frontend API (issue 17): the flow pages reach the server only through these calls. */
export const ORY_BASE = '/api/.ory';

/** What a successful login or registration answers (Kratos' shape); other kinds answer the flow again. */
export interface FlowSuccess {
  session?: KratosSession;
  continue_with?: Array<{
    action: string;
    redirect_browser_to?: string;
    flow?: { id: string; url?: string };
  }>;
}

export type SubmitResult = { type: 'flow'; flow: SelfServiceFlow } | { type: 'done'; body: FlowSuccess };

type Params = Record<string, string | undefined | null>;

// flows carry their own CSRF token (the csrf_token node, bound to an httpOnly cookie); a 401 is a flow's answer
const FLOW_OPTS = { allowUnauthorized: true, csrf: false } as const;

/** GET /self-service/<kind>/browser with Accept JSON: a new flow (return_to, aal, refresh, invite…). */
export function createBrowserFlow(kind: FlowType, params: Params = {}): Promise<SelfServiceFlow> {
  return api.get<SelfServiceFlow>(`${ORY_BASE}/self-service/${kind}/browser`, { ...FLOW_OPTS, query: params });
}

/** GET /self-service/<kind>/flows?id=: the flow as it stands. */
export function getFlow(kind: FlowType, id: string): Promise<SelfServiceFlow> {
  return api.get<SelfServiceFlow>(`${ORY_BASE}/self-service/${kind}/flows`, { ...FLOW_OPTS, query: { id } });
}

/**
 * POST /self-service/<kind>?flow=: the flow again (its next state, or a 400 with messages at the fields) or, for
 * login and registration, the session. Any other answer rejects with the ApiError for flowErrorAction.
 */
export async function submitFlow(kind: FlowType, flowId: string, body: Record<string, unknown>): Promise<SubmitResult> {
  try {
    const answer = await api.post<unknown>(`${ORY_BASE}/self-service/${kind}`, body, { ...FLOW_OPTS, query: { flow: flowId } });
    return isFlow(answer) ? { type: 'flow', flow: answer } : { type: 'done', body: (answer ?? {}) as FlowSuccess };
  } catch (err) {
    const flow = (err as { status?: number; body?: unknown }).body;
    if ((err as { status?: number }).status === 400 && isFlow(flow)) return { type: 'flow', flow };
    throw err;
  }
}

/** A flow error as GET /self-service/errors?id= keeps it (the /error page). */
export interface FlowErrorRecord {
  id: string;
  error: { code?: number; status?: string; message?: string; reason?: string; details?: Record<string, unknown> };
  created_at?: string;
}

export function getFlowError(id: string, signal?: AbortSignal): Promise<FlowErrorRecord> {
  return api.get<FlowErrorRecord>(`${ORY_BASE}/self-service/errors`, { ...FLOW_OPTS, query: { id }, signal });
}

/** Where a success continues, when the server says (a second factor to give, a new password to set). */
export function continueTarget(body: FlowSuccess): string | null {
  for (const step of body.continue_with ?? []) {
    if (step.action === 'redirect_browser_to' && step.redirect_browser_to) return step.redirect_browser_to;
    if (step.action === 'show_settings_ui' && step.flow) return step.flow.url ?? `/profile-settings?flow=${step.flow.id}`;
  }
  return null;
}

/** Signs out through Kratos' logout flow (a full page load: nothing of the session stays in memory). */
export async function signOutThroughFlow(returnTo?: string): Promise<void> {
  try {
    const { logout_url: url } = await api.get<{ logout_url: string }>(`${ORY_BASE}/self-service/logout/browser`, {
      ...FLOW_OPTS,
      query: { return_to: returnTo },
    });
    window.location.assign(browserTarget(url, window.location.origin).to);
  } catch {
    window.location.assign('/login');
  }
}

/** The sign-in mode (one query shared with the session gate's organisation gate). */
export { useAuthConfig } from '../organizations/api';

/** After a sign-in nothing cached for the previous user (or for no user) may show. */
export function useSessionStarted() {
  const qc = useQueryClient();
  return useCallback(() => {
    setCsrfToken(null);
    qc.clear();
  }, [qc]);
}

export interface UseFlow {
  flow: SelfServiceFlow | null;
  /** an error no catalogue entry covers (server down, 500): the page shows it with a retry */
  error: unknown;
  busy: boolean;
  /** submits the values; resolves with the success body (login, registration) or undefined when the flow stays */
  submit(values: Record<string, unknown>): Promise<FlowSuccess | undefined>;
  /** a new flow, as after an expiry */
  restart(): void;
}

const MAX_RESTARTS = 3;

/**
 * A flow page's flow: `?flow=<id>` is fetched, else a new browser flow is made (with `params`) and the address bar
 * becomes `?flow=<id>` (keeping return_to). Every error goes through the catalogue (flow-errors.ts): toasts,
 * redirects, a new flow, or the flow shown again with its messages.
 */
export function useFlow(kind: FlowType, params: Params = {}, { enabled = true }: { enabled?: boolean } = {}): UseFlow {
  const [location, navigate] = useLocation();
  const search = useSearch();
  const query = new URLSearchParams(search);
  const flowParam = query.get('flow');
  const returnTo = query.get('return_to');
  const [flow, setFlow] = useState<SelfServiceFlow | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const shown = useRef<string | null>(null);
  const restarts = useRef(0);
  const paramsKey = JSON.stringify(params);

  const show = useCallback(
    (next: SelfServiceFlow, keepReturnTo: boolean) => {
      shown.current = next.id;
      setFlow(next);
      setError(null);
      // the address keeps what the page was asked (return_to, aal, refresh) and never the credentials
      const q = new URLSearchParams(search);
      q.set('flow', next.id);
      q.delete('username');
      q.delete('password');
      // an invite token is a secret: the flow holds it now
      q.delete('invite');
      if (!keepReturnTo) q.delete('return_to');
      if (flowParam !== next.id || q.toString() !== search) navigate(`${location}?${q}`, { replace: true });
    },
    [location, navigate, flowParam, search],
  );

  // the handler and the loaders call each other; a ref keeps the latest handler without a dependency cycle
  const handleRef = useRef<(err: unknown) => void>(() => undefined);

  const create = useCallback(
    (dropReturnTo = false) => {
      const p: Params = JSON.parse(paramsKey) as Params;
      if (!dropReturnTo && returnTo) p.return_to = returnTo;
      createBrowserFlow(kind, p).then((f) => show(f, !dropReturnTo), (err: unknown) => handleRef.current(err));
    },
    [kind, paramsKey, returnTo, show],
  );
  const load = useCallback(
    (id: string) => getFlow(kind, id).then((f) => show(f, true), (err: unknown) => handleRef.current(err)),
    [kind, show],
  );

  handleRef.current = (err: unknown) => {
    const here = { kind, location: `${location}${search ? `?${search}` : ''}`, returnTo, origin: window.location.origin };
    const action: FlowErrorAction = flowErrorAction(err, here);
    switch (action.type) {
      case 'show':
        shown.current = action.flow.id;
        setFlow(action.flow);
        return;
      case 'navigate':
        if (action.hard) window.location.assign(action.to);
        else navigate(action.to, { replace: true });
        return;
      case 'restart':
        if (action.toast) toast.error(action.toast);
        if (++restarts.current > MAX_RESTARTS) {
          setError(err);
          return;
        }
        if (action.flowId) void load(action.flowId);
        else create(action.dropReturnTo);
        return;
      default:
        setError(action.error);
    }
  };

  useEffect(() => {
    if (!enabled || (flowParam && flowParam === shown.current)) return;
    if (flowParam) void load(flowParam);
    else create();
    // a new flow when the address asks for another one (a link to /login?aal=aal2 from the page itself)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [flowParam, paramsKey, enabled]);

  const submit = useCallback(
    async (values: Record<string, unknown>) => {
      if (!flow) return undefined;
      setBusy(true);
      try {
        const result = await submitFlow(kind, flow.id, values);
        if (result.type === 'flow') {
          shown.current = result.flow.id;
          setFlow(result.flow);
          return undefined;
        }
        return result.body;
      } catch (err) {
        handleRef.current(err);
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [kind, flow],
  );

  const restart = useCallback(() => {
    restarts.current = 0;
    setError(null);
    create();
  }, [create]);

  return { flow, error, busy, submit, restart };
}
