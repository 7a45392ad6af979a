import { FormProvider } from 'react-hook-form';
import { Button, makeStyles, Spinner, tokens } from '@fluentui/react-components';
import { useZodForm } from '../../../components/forms/form-dialog';
import { TextField } from '../../../components/forms/form-fields';
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
  const form = useZodForm(PasswordForm, EMPTY);

  const onSubmit = form.handleSubmit((values) => {
    setMessage(null);
    change.mutate(values, {
      onSuccess: () => {
        form.reset(EMPTY);
        setMessage({ intent: 'success', text: 'Your password was changed. Other sessions were signed out.' });
      },
      onError: (err) => setMessage({ intent: 'error', text: errorMessage(err) }),
    });
  });

  return (
    <ProfileSection id="profile-password" title="Password" description="Use at least 8 characters." message={message}>
      <FormProvider {...form}>
        <form className={s.form} onSubmit={onSubmit} noValidate aria-labelledby="profile-password">
          {/* lets password managers tie the new password to the account */}
          <input type="text" name="username" autoComplete="username" value={email ?? ''} readOnly hidden />
          <TextField<PasswordForm> name="currentPassword" label="Current password" type="password" required />
          <TextField<PasswordForm> name="newPassword" label="New password" type="password" required />
          <TextField<PasswordForm> name="confirmPassword" label="Confirm new password" type="password" required />
          <Button
            className={s.submit}
            appearance="primary"
            type="submit"
            disabledFocusable={change.isPending}
            icon={change.isPending ? <Spinner size="tiny" /> : undefined}
          >
            Change password
          </Button>
        </form>
      </FormProvider>
    </ProfileSection>
  );
}
