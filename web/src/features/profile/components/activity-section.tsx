import { useState } from 'react';
import { Button, makeStyles, tokens } from '@fluentui/react-components';
import { SignInActivityTable } from '../../../components/sign-in-activity-table';
import { useSignInActivity } from '../api';
import { NotMeDialog } from './not-me';
import { ProfileSection } from './profile-section';

const useStyles = makeStyles({ actions: { display: 'flex', gap: tokens.spacingHorizontalS } });

/** Sign-in activity: your latest sign-ins, failures and security changes, with "This wasn't me". */
export function ActivitySection({ personId }: { personId: string }) {
  const s = useStyles();
  const activity = useSignInActivity(personId);
  const [reporting, setReporting] = useState(false);
  return (
    <ProfileSection
      id="profile-activity"
      title="Sign-in activity"
      description="Your latest sign-ins and security changes. Something you did not do? Tell us and every session ends."
      message={null}
    >
      <SignInActivityTable rows={activity.data} loading={activity.isLoading} error={activity.error} />
      <div className={s.actions}>
        <Button onClick={() => setReporting(true)}>This wasn&apos;t me</Button>
      </div>
      <NotMeDialog open={reporting} onClose={() => setReporting(false)} />
    </ProfileSection>
  );
}
