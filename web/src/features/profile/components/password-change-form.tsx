import { FormProvider } from 'react-hook-form';
import { Button, makeStyles, Spinner, tokens } from '@fluentui/react-components';
import { useZodForm } from '../../../components/forms/form-dialog';
import { TextField } from '../../../components/forms/form-fields';
import { PasswordForm } from '../api';
import { ProfileSection } from './profile-section';
import { useSettingsAction } from './use-settings-action';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  submit: { alignSelf: 'flex-start' },
});

const EMPTY: PasswordForm = { newPassword: '', confirmPassword: '' };

/**
 * Password, through the settings flow's `password` method. A change needs a fresh sign-in (privileged session): past
 * that window the server sends the browser to /login?refresh=true and back here.
 */
export function PasswordChangeForm({ email }: { email: string | null }) {
  const s = useStyles();
  const action = useSettingsAction();
  const form = useZodForm(PasswordForm, EMPTY);

  const onSubmit = form.handleSubmit((values) => {
    action.run(
      { method: 'password', password: values.newPassword },
      'Your password was changed.',
      () => form.reset(EMPTY),
    );
  });

  return (
    <ProfileSection
      id="profile-password"
      title="Password"
      description="Use at least 8 characters."
      message={action.message}
    >
      <FormProvider {...form}>
        <form className={s.form} onSubmit={onSubmit} noValidate aria-labelledby="profile-password">
          {/* lets password managers tie the new password to the account */}
          <input type="text" name="username" autoComplete="username" value={email ?? ''} readOnly hidden />
          <TextField<PasswordForm> name="newPassword" label="New password" type="password" required />
          <TextField<PasswordForm> name="confirmPassword" label="Confirm new password" type="password" required />
          <Button
            className={s.submit}
            appearance="primary"
            type="submit"
            disabledFocusable={action.pending}
            icon={action.pending ? <Spinner size="tiny" /> : undefined}
          >
            Change password
          </Button>
        </form>
      </FormProvider>
    </ProfileSection>
  );
}
