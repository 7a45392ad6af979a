import { useEffect } from 'react';
import { useLocation, useSearch } from 'wouter';
import { Button } from '@fluentui/react-components';
import { FullPageState } from '../../components/full-page-state';
import { useWhoami } from '../../features/auth/api';
import { useAuthConfig } from '../../features/organizations/api';
import { ApiError } from '../../lib/api-client';
import { PROVISIONING_TEXT } from '../gates/session-gate';
import { paths, pathTo } from '../paths';

/** sessionStorage: when the last silent sign-in (prompt=none) left, so coming back signed out does not loop. */
export const SILENT_SIGN_IN_KEY = 'auth-state-checker.silent-at';
const SILENT_RETRY_MS = 60_000;

/** A same-origin path to go on to; anything else (another host, `//host`, a scheme) is home. */
export function safeReturnTo(raw: string | null): string {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return paths.home;
  // never back here or to the sign-in page: that is where the checker itself sends
  if (raw.startsWith(paths.authStateChecker) || raw.startsWith(paths.login)) return paths.home;
  return raw;
}

function silentTriedRecently(): boolean {
  try {
    const at = Number(sessionStorage.getItem(SILENT_SIGN_IN_KEY));
    return Number.isFinite(at) && at > 0 && Date.now() - at < SILENT_RETRY_MS;
  } catch {
    return true; // no storage: never risk a loop
  }
}

function markSilentTry(value: string | null) {
  try {
    if (value === null) sessionStorage.removeItem(SILENT_SIGN_IN_KEY);
    else sessionStorage.setItem(SILENT_SIGN_IN_KEY, value);
  } catch {
    // without storage the check above already declines the round trip
  }
}

/** What whoami's failure means for the checker. */
function outcome(err: unknown): 'signed-out' | 'aal2' | 'bad-session' | 'provisioning' | 'error' {
  if (!(err instanceof ApiError)) return 'error';
  if (err.status === 401) return 'signed-out';
  const id = (err.body as { error?: { id?: unknown } } | undefined)?.error?.id;
  if (err.status === 403 && id === 'session_aal2_required') return 'aal2';
  // a session the server holds but no longer accepts (inactive, refused, its person gone)
  if (err.status === 403 || err.status === 422) return 'bad-session';
  if (err.status === 404 || err.status >= 500) return 'provisioning';
  return 'error';
}

/**
 * /auth-state-checker?return_to= (spec 001 §8, issue 17 hosted mode): signed in → return_to; signed out in hosted
 * mode → one silent sign-in at the provider (`prompt=none`: back signed in, or the server sends the browser on to
 * /login?return_to=), guarded by a sessionStorage mark so it is tried once a minute at most; signed out otherwise →
 * /login?return_to=; a session the server no longer accepts → /error?error_code=BAD_SESSION.
 */
export function AuthStateCheckerPage() {
  const returnTo = safeReturnTo(new URLSearchParams(useSearch()).get('return_to'));
  const whoami = useWhoami({ allowUnauthorized: true });
  const config = useAuthConfig();
  const [, navigate] = useLocation();
  const state = whoami.isError ? outcome(whoami.error) : whoami.isSuccess ? 'signed-in' : 'checking';
  const hosted = config.data?.mode === 'oidc';
  const configKnown = !config.isPending;

  useEffect(() => {
    const loginQuery = { return_to: returnTo === paths.home ? undefined : returnTo };
    if (state === 'signed-in') {
      markSilentTry(null);
      navigate(returnTo, { replace: true });
    } else if (state === 'aal2') {
      navigate(pathTo(paths.login, {}, { aal: 'aal2', ...loginQuery }), { replace: true });
    } else if (state === 'bad-session') {
      navigate(pathTo(paths.error, {}, { error_code: 'BAD_SESSION' }), { replace: true });
    } else if (state === 'signed-out' && configKnown) {
      if (hosted && config.data?.oidc && !silentTriedRecently()) {
        markSilentTry(String(Date.now()));
        const login = config.data.oidc.login_url || '/api/auth/oidc/login';
        window.location.assign(`${login}?${new URLSearchParams({ prompt: 'none', return_to: returnTo })}`);
      } else {
        navigate(pathTo(paths.login, {}, loginQuery), { replace: true });
      }
    }
  }, [state, hosted, configKnown, config.data, returnTo, navigate]);

  if (state === 'provisioning') return <FullPageState busy={PROVISIONING_TEXT} />;
  if (state === 'error') {
    return (
      <FullPageState
        title="Could not check your session"
        description={whoami.error?.message}
        role="alert"
        actions={<Button onClick={() => void whoami.refetch()}>Try again</Button>}
      />
    );
  }
  return <FullPageState busy="Checking your session…" />;
}
