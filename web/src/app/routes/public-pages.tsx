import { Link, Redirect, useLocation, useSearch } from 'wouter';
import { useQuery } from '@tanstack/react-query';
import { Link as FluentLink, makeStyles, Text, tokens } from '@fluentui/react-components';
import { FlowForm } from '../../features/auth/flow-form';
import { browserTarget } from '../../features/auth/flow-errors';
import { useWhoami } from '../../features/auth/api';
import { continueTarget, getFlowError, useFlow } from '../../features/auth/flows';
import { ApiError } from '../../lib/api-client';
import { safeReturnTo } from '../../lib/return-to';
import { paths } from '../paths';
import { AuthLayout } from './auth-layout';
import { FlowFailed, FlowLoading } from './flow-page-parts';

export const BAD_SESSION_TEXT =
  'Bad Session. Please try logging out and logging in again, if the problem persist, please contact us.';
export const FLOW_ERROR_TITLE = 'An error occurred';

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, alignItems: 'flex-start' },
  flow: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL },
  muted: { color: tokens.colorNeutralForeground2 },
  details: { fontFamily: tokens.fontFamilyMonospace, whiteSpace: 'pre-wrap', wordBreak: 'break-word', margin: 0 },
});

function GoBack() {
  return (
    <Link href={paths.home} asChild>
      <FluentLink>Go back</FluentLink>
    </Link>
  );
}

/** /error?id=…: a sign-in flow's error as the server kept it ("An error occurred", details, Go back). */
function FlowErrorDetails({ id }: { id: string }) {
  const s = useStyles();
  const record = useQuery({ queryKey: ['auth', 'flow-error', id], queryFn: ({ signal }) => getFlowError(id, signal), retry: false });
  const status = record.error instanceof ApiError ? record.error.status : undefined;
  // an unknown, foreign or expired error record: nothing to show, go home (spec 001: 404/403/410 → /)
  if (status === 404 || status === 403 || status === 410) return <Redirect to={paths.home} replace />;
  const e = record.data?.error;
  return (
    <AuthLayout title={FLOW_ERROR_TITLE}>
      <div className={s.body}>
        {record.isPending ? (
          <FlowLoading />
        ) : (
          <>
            <Text role="alert">{e?.message ?? (record.error ? record.error.message : 'Unknown error')}</Text>
            {e?.reason && <Text className={s.muted}>{e.reason}</Text>}
            {e && (
              <pre className={s.details} aria-label="Details">
                {[e.code && `${e.code} ${e.status ?? ''}`.trim(), e.details && JSON.stringify(e.details, null, 2)].filter(Boolean).join('\n')}
              </pre>
            )}
          </>
        )}
        <GoBack />
      </div>
    </AuthLayout>
  );
}

/** /error?error_code=… (BAD_SESSION from the auth-state checker), or a sign-in flow's error by `id`. */
export function ErrorPage() {
  const s = useStyles();
  const query = new URLSearchParams(useSearch());
  const id = query.get('id');
  if (id) return <FlowErrorDetails id={id} />;
  const text = query.get('error_code') === 'BAD_SESSION' ? BAD_SESSION_TEXT : 'Unknown error';
  return (
    <AuthLayout title="Something went wrong">
      <div className={s.body}>
        <Text role="alert">{text}</Text>
        <GoBack />
      </div>
    </AuthLayout>
  );
}

function BackToSignIn() {
  return (
    <Link href={paths.login} asChild>
      <FluentLink>Back to sign in</FluentLink>
    </Link>
  );
}

/**
 * /recovery: the recovery flow: the email, then the code from the mail (or its link); a right code signs in with a
 * privileged session and the server sends the browser on to set a new password (browser_location_change_required).
 * Without a mail server the flow's message says so.
 */
export function RecoveryPage() {
  const s = useStyles();
  const [, navigate] = useLocation();
  const { flow, error, busy, submit, restart } = useFlow('recovery');
  const onSubmit = async (body: Record<string, unknown>) => {
    const done = await submit(body);
    const to = done && continueTarget(done);
    if (!to) return;
    const next = browserTarget(to, window.location.origin);
    if (next.hard) window.location.assign(next.to);
    else navigate(next.to, { replace: true });
  };
  return (
    <AuthLayout
      title="Account recovery"
      subtitle={
        flow?.state === 'sent_email'
          ? 'Enter the code from the email we sent you, or open its link.'
          : 'Enter the email address of your account to get a recovery code.'
      }
    >
      <div className={s.flow}>
        {error ? <FlowFailed error={error} onRetry={restart} /> : flow ? <FlowForm flow={flow} onSubmit={onSubmit} busy={busy} /> : <FlowLoading />}
        <BackToSignIn />
      </div>
    </AuthLayout>
  );
}

/** /verification: the verification flow (the code from the mail, or its link); once verified, a way on. */
export function VerificationPage() {
  const s = useStyles();
  const query = new URLSearchParams(useSearch());
  const { flow, error, busy, submit, restart } = useFlow('verification');
  const done = flow?.state === 'passed_challenge';
  const onward = safeReturnTo(flow?.return_to ?? query.get('return_to'));
  // a signed-in person verifying a changed email goes back to the console, not to the sign-in page
  const signedIn = useWhoami({ allowUnauthorized: true }).isSuccess;
  return (
    <AuthLayout title="Verify your email" subtitle={done ? undefined : 'Enter the code from the email we sent you.'}>
      <div className={s.flow}>
        {error ? (
          <FlowFailed error={error} onRetry={restart} />
        ) : flow ? (
          <FlowForm flow={flow} onSubmit={(body) => submit(body)} busy={busy} groups={done ? [] : undefined} />
        ) : (
          <FlowLoading />
        )}
        {done ? (
          <Link href={onward} asChild>
            <FluentLink>Continue</FluentLink>
          </Link>
        ) : signedIn ? (
          <Link href={onward} asChild>
            <FluentLink>Back to the console</FluentLink>
          </Link>
        ) : (
          <BackToSignIn />
        )}
      </div>
    </AuthLayout>
  );
}
