import { FormProvider } from 'react-hook-form';
import { Button, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import type { SelfServiceFlow } from '@contracts/identity';
import { useZodForm } from '../../../components/forms/form-dialog';
import { TextField } from '../../../components/forms/form-fields';
import { ProfileForm } from '../api';
import { inputValue } from '../flow-nodes';
import { ProfileSection } from './profile-section';
import { useSettingsAction } from './use-settings-action';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  row: { display: 'grid', gridTemplateColumns: '1fr 1fr', gap: tokens.spacingHorizontalM },
  submit: { alignSelf: 'flex-start' },
  pending: { margin: 0, color: tokens.colorNeutralForeground2 },
});

function fromFlow(flow: SelfServiceFlow): ProfileForm {
  return {
    firstName: inputValue(flow, 'traits.name.first') || (flow.identity?.traits.name.first ?? ''),
    lastName: inputValue(flow, 'traits.name.last') || (flow.identity?.traits.name.last ?? ''),
    email: inputValue(flow, 'traits.email') || (flow.identity?.traits.email ?? ''),
  };
}

/** A new address waiting for its verification link (the email changes once it is confirmed). */
export function pendingEmail(flow: SelfServiceFlow): string | null {
  const current = flow.identity?.traits.email?.toLowerCase();
  const pending = flow.identity?.verifiable_addresses?.find((a) => !a.verified && a.value.toLowerCase() !== current);
  return pending?.value ?? null;
}

/** Profile: first name, last name and email (the spec's user-form texts), through the settings flow's `profile`. */
export function NameForm({ flow }: { flow: SelfServiceFlow }) {
  const s = useStyles();
  const action = useSettingsAction();
  const form = useZodForm(ProfileForm, fromFlow(flow));
  const waiting = pendingEmail(flow);

  const onSubmit = form.handleSubmit((values) => {
    const before = form.formState.defaultValues?.email ?? '';
    const emailChanged = values.email.toLowerCase() !== before.toLowerCase();
    action.run(
      { method: 'profile', 'traits.email': values.email, 'traits.name.first': values.firstName, 'traits.name.last': values.lastName },
      (next) => {
        const applied = (next.identity?.traits.email ?? values.email).toLowerCase() === values.email.toLowerCase();
        return emailChanged && !applied
          ? `Your name was saved. Check your inbox at ${values.email} to confirm the new email; until then you sign in with ${before}.`
          : 'Your profile was updated.';
      },
      (next) => form.reset({ ...fromFlow(next), firstName: values.firstName, lastName: values.lastName }),
    );
  });

  return (
    <ProfileSection
      id="profile-name"
      title="Profile"
      description="Your name and email, as others see them in the console."
      message={action.message}
    >
      <FormProvider {...form}>
        <form className={s.form} onSubmit={onSubmit} noValidate aria-labelledby="profile-name">
          <div className={s.row}>
            <TextField<ProfileForm> name="firstName" label="First name" required />
            <TextField<ProfileForm> name="lastName" label="Last name" required />
          </div>
          <TextField<ProfileForm> name="email" label="Email" type="email" required />
          {waiting && (
            <Text as="p" className={s.pending}>
              Waiting for you to confirm {waiting}: check your inbox.
            </Text>
          )}
          <Button
            className={s.submit}
            appearance="primary"
            type="submit"
            disabledFocusable={action.pending || !form.formState.isDirty}
            icon={action.pending ? <Spinner size="tiny" /> : undefined}
          >
            Save
          </Button>
        </form>
      </FormProvider>
    </ProfileSection>
  );
}
