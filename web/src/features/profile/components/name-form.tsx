import { FormProvider } from 'react-hook-form';
import { Button, makeStyles, Spinner, tokens } from '@fluentui/react-components';
import { useZodForm } from '../../../components/forms/form-dialog';
import { TextField } from '../../../components/forms/form-fields';
import { errorMessage } from '../../../lib/api-client';
import { ProfileForm, useUpdateProfile } from '../api';
import { ProfileSection } from './profile-section';
import { useTimedMessage } from './use-timed-message';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  row: { display: 'grid', gridTemplateColumns: '1fr 1fr', gap: tokens.spacingHorizontalM },
  submit: { alignSelf: 'flex-start' },
});

/** whoami has the display name only: the first word is the first name, the rest the last. */
function splitName(name: string): ProfileForm {
  const [first = '', ...rest] = name.trim().split(/\s+/);
  return { firstName: first, lastName: rest.join(' ') };
}

export function NameForm({ user }: { user: { name: string } }) {
  const s = useStyles();
  const update = useUpdateProfile();
  const [message, setMessage] = useTimedMessage();
  const form = useZodForm(ProfileForm, splitName(user.name));

  const onSubmit = form.handleSubmit((values) => {
    setMessage(null);
    update.mutate(values, {
      onSuccess: () => {
        form.reset(values);
        setMessage({ intent: 'success', text: 'Your name was updated.' });
      },
      onError: (err) => setMessage({ intent: 'error', text: errorMessage(err) }),
    });
  });

  return (
    <ProfileSection
      id="profile-name"
      title="Name"
      description="How you appear to others in the console."
      message={message}
    >
      <FormProvider {...form}>
        <form className={s.form} onSubmit={onSubmit} noValidate aria-labelledby="profile-name">
          <div className={s.row}>
            <TextField<ProfileForm> name="firstName" label="First name" required />
            <TextField<ProfileForm> name="lastName" label="Last name" required />
          </div>
          <Button
            className={s.submit}
            appearance="primary"
            type="submit"
            disabledFocusable={update.isPending || !form.formState.isDirty}
            icon={update.isPending ? <Spinner size="tiny" /> : undefined}
          >
            Save
          </Button>
        </form>
      </FormProvider>
    </ProfileSection>
  );
}
