import { useEffect, useMemo, useRef } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { Button, Divider, Link as FluentLink, makeStyles, Text, tokens } from '@fluentui/react-components';
import type { UiNode } from '@contracts/identity';
import { FlowForm } from '../../features/auth/flow-form';
import { browserTarget } from '../../features/auth/flow-errors';
import { runWebAuthnTrigger } from '../../features/auth/flow-webauthn';
import { continueTarget, signOutThroughFlow, useAuthConfig, useFlow, useSessionStarted } from '../../features/auth/flows';
import { safeReturnTo } from '../../lib/return-to';
import { paths } from '../paths';
import { AuthLayout } from './auth-layout';
import { FlowFailed, FlowLoading, HostedSignInError } from './flow-page-parts';

/** The console's own labels for the login flow's fields (the e2e page objects and users know them). */
const LOGIN_LABELS = { identifier: 'Username or email' };

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL },
  footer: { display: 'flex', justifyContent: 'space-between', alignItems: 'center', gap: tokens.spacingHorizontalM },
  muted: { color: tokens.colorNeutralForeground2 },
});

// the second step's "Sign out" is a button of the page (the flow's link points at the API, which answers JSON)
const isLogoutLink = (n: UiNode) => n.attributes.node_type === 'a' && n.attributes.href.includes('/self-service/logout');

/**
 * /login?flow&return_to&aal&refresh: the login flow (password; second factor at aal2; "Confirm it's you" on
 * refresh), `username` + `password` in the query sign in at once; in hosted mode a link to the provider first.
 */
export function LoginPage() {
  const s = useStyles();
  const [, navigate] = useLocation();
  const query = new URLSearchParams(useSearch());
  const returnTo = query.get('return_to');
  const aal = query.get('aal') ?? undefined;
  const refresh = query.get('refresh') ?? undefined;
  const oidcError = query.get('oidc_error');
  // credentials from a provisioning script's link: read once, then gone from the address bar with the flow's id
  const creds = useRef({ identifier: query.get('username'), password: query.get('password'), sent: false });

  const config = useAuthConfig();
  const hosted = config.data?.mode === 'oidc' ? config.data : null;
  const local = !hosted || hosted.local_login !== 'none';
  const params = useMemo(() => ({ aal, refresh }), [aal, refresh]);
  const { flow, error, busy, submit, restart } = useFlow('login', params, { enabled: local });
  const started = useSessionStarted();

  const onSubmit = async (body: Record<string, unknown>) => {
    const done = await submit(body);
    if (!done) return;
    started();
    const next = browserTarget(continueTarget(done) ?? safeReturnTo(returnTo), window.location.origin);
    if (next.hard) window.location.assign(next.to);
    else navigate(next.to.startsWith('/login') ? next.to : safeReturnTo(next.to), { replace: true });
  };

  useEffect(() => {
    const c = creds.current;
    const csrf = flow?.ui.nodes.find((n) => n.attributes.node_type === 'input' && n.attributes.name === 'csrf_token');
    if (!flow || c.sent || !c.identifier || !c.password || flow.requested_aal === 'aal2' || flow.refresh) return;
    c.sent = true;
    const csrfToken = csrf?.attributes.node_type === 'input' ? csrf.attributes.value : undefined;
    void onSubmit({ method: 'password', identifier: c.identifier, password: c.password, csrf_token: csrfToken });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [flow]);

  const second = flow?.requested_aal === 'aal2' || aal === 'aal2';
  const again = flow?.refresh === true || refresh === 'true';
  const title = second ? 'Second factor' : again ? "Confirm it's you" : 'Sign in';
  const subtitle = second
    ? 'Your account has a second factor. Use it to finish signing in.'
    : again
      ? 'Enter your password again to continue.'
      : 'Use your console account to continue.';
  const hostedHref = hosted?.oidc
    ? `${hosted.oidc.login_url}${returnTo ? `?return_to=${encodeURIComponent(safeReturnTo(returnTo))}` : ''}`
    : null;

  return (
    <AuthLayout title={title} subtitle={subtitle}>
      <div className={s.body}>
        {oidcError && <HostedSignInError provider={hosted?.oidc?.display_name} message={oidcError} local={hosted?.local_login ?? 'admins'} />}
        {hostedHref && !second && !again && (
          <>
            {/* a link, not a form: CSP form-action 'self' would block a form redirected to the provider */}
            <Button as="a" href={hostedHref} appearance="primary" size="large">
              Sign in with {hosted!.oidc!.display_name}
            </Button>
            {local && <Divider>{hosted!.local_login === 'admins' ? 'or, for administrators' : 'or'}</Divider>}
          </>
        )}
        {local && error ? (
          <FlowFailed error={error} onRetry={restart} />
        ) : local && flow ? (
          <FlowForm
            flow={flow}
            onSubmit={onSubmit}
            busy={busy}
            labels={LOGIN_LABELS}
            hideNode={isLogoutLink}
            autoFocus={!hosted}
            onTrigger={runWebAuthnTrigger}
          />
        ) : local ? (
          <FlowLoading />
        ) : null}
        <div className={s.footer}>
          {second || again ? (
            <>
              <Text className={s.muted}>Not you?</Text>
              <Button appearance="secondary" onClick={() => void signOutThroughFlow()}>
                Sign out
              </Button>
            </>
          ) : (
            !hosted && (
              <Link href={paths.recovery} asChild>
                <FluentLink>Forgot your password?</FluentLink>
              </Link>
            )
          )}
        </div>
      </div>
    </AuthLayout>
  );
}
