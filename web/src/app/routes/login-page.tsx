import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useLocation, useSearch } from 'wouter';
import {
  Button,
  Field,
  Input,
  makeStyles,
  MessageBar,
  MessageBarBody,
  Spinner,
  tokens,
} from '@fluentui/react-components';
import { LoginRequest } from '@contracts/auth';
import { useLogin } from '../../features/auth/api';
import { ApiError, errorMessage } from '../../lib/api-client';
import { safeReturnTo } from '../../lib/return-to';
import { AuthLayout } from './auth-layout';

export const LOGIN_ERRORS = {
  invalid: 'Invalid username or password.',
  rateLimited: 'Too many sign-in attempts. Please wait a minute and try again.',
};

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL },
  submit: { marginTop: tokens.spacingVerticalS },
});

function loginError(err: unknown): string {
  if (err instanceof ApiError && err.status === 401) return LOGIN_ERRORS.invalid;
  if (err instanceof ApiError && err.status === 429) return LOGIN_ERRORS.rateLimited;
  return errorMessage(err);
}

type FieldErrors = Partial<Record<'username' | 'password', string>>;

/** /login: username and password; follows a same-origin return_to; `username` + `password` query auto-submit. */
export function LoginPage() {
  const s = useStyles();
  const [, navigate] = useLocation();
  const query = new URLSearchParams(useSearch());
  const returnTo = safeReturnTo(query.get('return_to'));
  const [username, setUsername] = useState(query.get('username') ?? '');
  const [password, setPassword] = useState(query.get('password') ?? '');
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const login = useLogin();

  const submit = (creds: { username: string; password: string }) => {
    const parsed = LoginRequest.safeParse(creds);
    if (!parsed.success) {
      const errors: FieldErrors = {};
      for (const issue of parsed.error.issues) errors[issue.path[0] as keyof FieldErrors] ??= issue.message;
      setFieldErrors(errors);
      return;
    }
    setFieldErrors({});
    login.mutate(parsed.data, { onSuccess: () => navigate(returnTo, { replace: true }) });
  };

  // credentials in the query (links from a provisioning script) sign in at once and leave the address bar
  const autoSubmitted = useRef(false);
  useEffect(() => {
    const u = query.get('username');
    const p = query.get('password');
    if (autoSubmitted.current || !u || !p) return;
    autoSubmitted.current = true;
    const keep = query.get('return_to');
    window.history.replaceState(null, '', keep ? `/login?return_to=${encodeURIComponent(keep)}` : '/login');
    submit({ username: u, password: p });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    submit({ username, password });
  };

  return (
    <AuthLayout title="Sign in" subtitle="Use your console account to continue.">
      <form className={s.form} onSubmit={onSubmit} noValidate aria-label="Sign in">
        {login.isError && (
          <MessageBar intent="error" role="alert">
            <MessageBarBody>{loginError(login.error)}</MessageBarBody>
          </MessageBar>
        )}
        <Field label="Username or email" required validationMessage={fieldErrors.username}>
          <Input
            name="username"
            autoComplete="username"
            autoFocus
            value={username}
            onChange={(_, d) => setUsername(d.value)}
          />
        </Field>
        <Field label="Password" required validationMessage={fieldErrors.password}>
          <Input
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(_, d) => setPassword(d.value)}
          />
        </Field>
        <Button
          className={s.submit}
          type="submit"
          appearance="primary"
          size="large"
          disabled={login.isPending}
          icon={login.isPending ? <Spinner size="tiny" /> : undefined}
        >
          {login.isPending ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
    </AuthLayout>
  );
}
