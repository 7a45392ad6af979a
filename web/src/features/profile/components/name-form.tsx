import { Controller, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Field, Input, makeStyles, Spinner, tokens } from '@fluentui/react-components';
import { errorMessage } from '../../../lib/api-client';
import { ProfileForm, useUpdateProfile } from '../api';
import { ProfileSection } from './profile-section';
import { useTimedMessage } from './use-timed-message';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, alignItems: 'stretch' },
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
  const form = useForm({ resolver: zodResolver(ProfileForm), defaultValues: splitName(user.name) });
  const { errors, isDirty } = form.formState;

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
      <form className={s.form} onSubmit={onSubmit} noValidate aria-labelledby="profile-name">
        <div className={s.row}>
          <Field label="First name" required validationMessage={errors.firstName?.message}>
            <Controller
              control={form.control}
              name="firstName"
              render={({ field }) => (
                <Input
                  autoComplete="given-name"
                  value={field.value}
                  onChange={(_, d) => field.onChange(d.value)}
                  onBlur={field.onBlur}
                  ref={field.ref}
                  name={field.name}
                />
              )}
            />
          </Field>
          <Field label="Last name" required validationMessage={errors.lastName?.message}>
            <Controller
              control={form.control}
              name="lastName"
              render={({ field }) => (
                <Input
                  autoComplete="family-name"
                  value={field.value}
                  onChange={(_, d) => field.onChange(d.value)}
                  onBlur={field.onBlur}
                  ref={field.ref}
                  name={field.name}
                />
              )}
            />
          </Field>
        </div>
        <Button
          className={s.submit}
          appearance="primary"
          type="submit"
          disabled={update.isPending || !isDirty}
          icon={update.isPending ? <Spinner size="tiny" /> : undefined}
        >
          Save
        </Button>
      </form>
    </ProfileSection>
  );
}
