import { Controller, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Field, Input, makeStyles, Spinner, tokens } from '@fluentui/react-components';
import { errorMessage } from '../../../lib/api-client';
import { PasswordForm, useChangePassword } from '../api';
import { ProfileSection } from './profile-section';
import { useTimedMessage } from './use-timed-message';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  submit: { alignSelf: 'flex-start' },
});

const EMPTY: PasswordForm = { currentPassword: '', newPassword: '', confirmPassword: '' };

export function PasswordChangeForm({ email }: { email: string | null }) {
  const s = useStyles();
  const change = useChangePassword();
  const [message, setMessage] = useTimedMessage();
  const form = useForm({ resolver: zodResolver(PasswordForm), defaultValues: EMPTY });
  const { errors } = form.formState;

  const onSubmit = form.handleSubmit((values) => {
    setMessage(null);
    change.mutate(values, {
      onSuccess: () => {
        form.reset(EMPTY);
        setMessage({ intent: 'success', text: 'Your password was changed.' });
      },
      onError: (err) => setMessage({ intent: 'error', text: errorMessage(err) }),
    });
  });

  return (
    <ProfileSection id="profile-password" title="Password" description="Use at least 8 characters." message={message}>
      <form className={s.form} onSubmit={onSubmit} noValidate aria-labelledby="profile-password">
        {/* lets password managers tie the new password to the account */}
        <input type="text" name="username" autoComplete="username" value={email ?? ''} readOnly hidden />
        <Field label="Current password" required validationMessage={errors.currentPassword?.message}>
          <Controller
            control={form.control}
            name="currentPassword"
            render={({ field }) => (
              <Input
                type="password"
                autoComplete="current-password"
                value={field.value}
                onChange={(_, d) => field.onChange(d.value)}
                onBlur={field.onBlur}
                ref={field.ref}
                name={field.name}
              />
            )}
          />
        </Field>
        <Field label="New password" required validationMessage={errors.newPassword?.message}>
          <Controller
            control={form.control}
            name="newPassword"
            render={({ field }) => (
              <Input
                type="password"
                autoComplete="new-password"
                value={field.value}
                onChange={(_, d) => field.onChange(d.value)}
                onBlur={field.onBlur}
                ref={field.ref}
                name={field.name}
              />
            )}
          />
        </Field>
        <Field label="Confirm new password" required validationMessage={errors.confirmPassword?.message}>
          <Controller
            control={form.control}
            name="confirmPassword"
            render={({ field }) => (
              <Input
                type="password"
                autoComplete="new-password"
                value={field.value}
                onChange={(_, d) => field.onChange(d.value)}
                onBlur={field.onBlur}
                ref={field.ref}
                name={field.name}
              />
            )}
          />
        </Field>
        <Button
          className={s.submit}
          appearance="primary"
          type="submit"
          disabled={change.isPending}
          icon={change.isPending ? <Spinner size="tiny" /> : undefined}
        >
          Change password
        </Button>
      </form>
    </ProfileSection>
  );
}
