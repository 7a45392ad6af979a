import { useEffect } from 'react';
import { Link, Redirect, useLocation, useSearch } from 'wouter';
import { Button, Link as FluentLink, makeStyles, Text, tokens } from '@fluentui/react-components';
import { FullPageState } from '../../components/full-page-state';
import { useWhoami } from '../../features/auth/api';
import { ApiError } from '../../lib/api-client';
import { PROVISIONING_TEXT } from '../gates/session-gate';
import { paths } from '../paths';
import { AuthLayout } from './auth-layout';
import { NOT_AVAILABLE_TEXT } from './status-pages';

export const BAD_SESSION_TEXT =
  'Bad Session. Please try logging out and logging in again, if the problem persist, please contact us.';

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, alignItems: 'flex-start' },
  muted: { color: tokens.colorNeutralForeground2 },
});

/** /error?error_code=…; with an `id` it is a sign-in flow error, and this console has no flows: back home. */
export function ErrorPage() {
  const s = useStyles();
  const query = new URLSearchParams(useSearch());
  if (query.get('id')) return <Redirect to={paths.home} replace />;
  const text = query.get('error_code') === 'BAD_SESSION' ? BAD_SESSION_TEXT : 'Unknown error';
  return (
    <AuthLayout title="Something went wrong">
      <div className={s.body}>
        <Text role="alert">{text}</Text>
        <Link href={paths.home} asChild>
          <FluentLink>Go back</FluentLink>
        </Link>
      </div>
    </AuthLayout>
  );
}

/** /auth-state-checker: signed in goes home, signed out goes to the sign-in page. */
export function AuthStateCheckerPage() {
  const whoami = useWhoami({ allowUnauthorized: true });
  const [, navigate] = useLocation();
  const status = whoami.error instanceof ApiError ? whoami.error.status : undefined;
  useEffect(() => {
    if (whoami.isSuccess) navigate(paths.home, { replace: true });
    else if (status === 401) navigate(paths.login, { replace: true });
  }, [whoami.isSuccess, status, navigate]);
  if (status !== undefined && (status === 404 || status >= 500)) return <FullPageState busy={PROVISIONING_TEXT} />;
  if (whoami.isError && status !== 401) {
    return (
      <FullPageState
        title="Could not check your session"
        description={whoami.error.message}
        role="alert"
        actions={<Button onClick={() => void whoami.refetch()}>Try again</Button>}
      />
    );
  }
  return <FullPageState busy="Checking your session…" />;
}

/** Account recovery and verification need an email service this version does not have. */
export function SelfServicePage({ title }: { title: string }) {
  const s = useStyles();
  return (
    <AuthLayout title={title}>
      <div className={s.body}>
        <Text weight="semibold">{NOT_AVAILABLE_TEXT}</Text>
        <Text className={s.muted}>
          This console does not send emails yet. Ask an administrator for a new invite link to set a password.
        </Text>
        <Link href={paths.login} asChild>
          <FluentLink>Back to sign in</FluentLink>
        </Link>
      </div>
    </AuthLayout>
  );
}
