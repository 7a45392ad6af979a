import { useState } from 'react';
import { Button, Divider, makeStyles, Text, tokens } from '@fluentui/react-components';
import type { UserSummary } from '@contracts/auth';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { SignInActivityTable } from '../../../components/sign-in-activity-table';
import { usePersonActivity, useResetSecondFactor, useSignOutUser } from '../api';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
  heading: { margin: 0 },
  actions: { display: 'flex', gap: tokens.spacingHorizontalS, flexWrap: 'wrap' },
});

type Confirming = 'sign-out' | 'reset' | null;

/** Edit User's security part: sign the person out everywhere, reset their second factor, and their sign-in activity. */
export function UserSecurity({ user }: { user: UserSummary }) {
  const s = useStyles();
  const signOut = useSignOutUser();
  const reset = useResetSecondFactor();
  const activity = usePersonActivity(user.id);
  const [confirming, setConfirming] = useState<Confirming>(null);
  const refetch = () => void activity.refetch();

  return (
    <section className={s.root} aria-labelledby="edit-user-security">
      <Divider />
      <Text as="h3" id="edit-user-security" weight="semibold" className={s.heading}>
        Security
      </Text>
      <div className={s.actions}>
        <Button onClick={() => setConfirming('sign-out')}>Sign out everywhere</Button>
        <Button onClick={() => setConfirming('reset')}>Reset second factor</Button>
      </div>
      <Text as="h4" weight="semibold" className={s.heading}>
        Sign-in activity
      </Text>
      <SignInActivityTable rows={activity.data} loading={activity.isLoading} error={activity.error} />
      <ConfirmDialog
        open={confirming === 'sign-out'}
        title={`Sign ${user.name} out everywhere?`}
        description="Every session of theirs ends at once; they can sign in again with their password."
        confirmLabel="Sign out"
        danger
        busy={signOut.isPending}
        onCancel={() => setConfirming(null)}
        onConfirm={() => signOut.mutate(user, { onSuccess: () => setConfirming(null), onSettled: refetch })}
      />
      <ConfirmDialog
        open={confirming === 'reset'}
        title={`Reset ${user.name}'s second factor?`}
        description="Their authenticator app, recovery codes and security keys are removed; their next sign-in asks for the password only, and they can set up a new second factor in Your Profile."
        confirmLabel="Reset"
        danger
        busy={reset.isPending}
        onCancel={() => setConfirming(null)}
        onConfirm={() => reset.mutate(user, { onSuccess: () => setConfirming(null), onSettled: refetch })}
      />
    </section>
  );
}
