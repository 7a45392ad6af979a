import { useState, type FormEvent } from 'react';
import { useLocation, useSearch } from 'wouter';
import { Button, Field, Input, makeStyles, MessageBar, MessageBarBody, Spinner, tokens } from '@fluentui/react-components';
import { RegistrationRequest } from '@contracts/auth';
import { useRegistration } from '../../features/auth/api';
import { errorMessage } from '../../lib/api-client';
import { paths } from '../paths';
import { AuthLayout } from './auth-layout';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL },
});

/** /registration?invite=…: choose a password; on success the new user is signed in and sent home. */
export function RegistrationPage() {
  const s = useStyles();
  const [, navigate] = useLocation();
  const invite = new URLSearchParams(useSearch()).get('invite') ?? '';
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<{ password?: string; confirm?: string }>({});
  const registration = useRegistration();

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = RegistrationRequest.safeParse({ invite, password });
    const next = {
      password: parsed.success ? undefined : parsed.error.issues.find((i) => i.path[0] === 'password')?.message,
      confirm: password === confirm ? undefined : 'Passwords do not match',
    };
    setErrors(next);
    if (!parsed.success || next.confirm) return;
    registration.mutate(parsed.data, { onSuccess: () => navigate(paths.home, { replace: true }) });
  };

  if (!invite) {
    return (
      <AuthLayout title="Create your account">
        <MessageBar intent="warning">
          <MessageBarBody>This page needs an invite link. Ask an administrator of the console to invite you.</MessageBarBody>
        </MessageBar>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="Create your account" subtitle="You were invited to the console. Choose a password to finish.">
      <form className={s.form} onSubmit={onSubmit} noValidate aria-label="Create your account">
        {registration.isError && (
          <MessageBar intent="error" role="alert">
            <MessageBarBody>{errorMessage(registration.error)}</MessageBarBody>
          </MessageBar>
        )}
        <Field label="Password" required validationMessage={errors.password} hint="At least 8 characters.">
          <Input type="password" name="password" autoComplete="new-password" autoFocus value={password} onChange={(_, d) => setPassword(d.value)} />
        </Field>
        <Field label="Confirm password" required validationMessage={errors.confirm}>
          <Input type="password" name="confirm" autoComplete="new-password" value={confirm} onChange={(_, d) => setConfirm(d.value)} />
        </Field>
        <Button
          type="submit"
          appearance="primary"
          size="large"
          disabled={registration.isPending}
          icon={registration.isPending ? <Spinner size="tiny" /> : undefined}
        >
          {registration.isPending ? 'Creating account…' : 'Create account'}
        </Button>
      </form>
    </AuthLayout>
  );
}
