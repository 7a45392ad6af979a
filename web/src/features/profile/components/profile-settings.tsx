import { Avatar, Caption1, makeStyles, MessageBar, MessageBarBody, Spinner, Text, tokens } from '@fluentui/react-components';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { useSettingsFlow } from '../api';
import { ActivitySection } from './activity-section';
import { AuthenticatorSection } from './authenticator-section';
import { NameForm } from './name-form';
import { PasswordChangeForm } from './password-change-form';
import { RecoveryCodesSection } from './recovery-codes-section';
import { SecurityKeysSection } from './security-keys-section';
import { SessionsSection } from './sessions-section';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXL, maxWidth: '760px' },
  who: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalL },
  heading: { margin: 0, display: 'block' },
  muted: { display: 'block', margin: 0, color: tokens.colorNeutralForeground3 },
  group: { margin: `${tokens.spacingVerticalS} 0 0`, color: tokens.colorNeutralForeground2 },
});

export interface ProfileUser {
  id: string;
  name: string;
  email: string | null;
}

/**
 * Your Profile (/profile-settings): name and email, password, second factors (authenticator app, recovery codes,
 * security keys and passkeys) through one Kratos settings flow; then sessions and sign-in activity.
 */
export function ProfileSettings({ user, sessionsRefreshMs }: { user: ProfileUser; sessionsRefreshMs?: number }) {
  const s = useStyles();
  const flow = useSettingsFlow();
  return (
    <Page title="Your Profile">
      <div className={s.root}>
        <div className={s.who}>
          <Avatar name={user.name} size={56} color="brand" aria-hidden />
          <div>
            <Text as="h2" size={600} weight="semibold" className={s.heading}>
              {user.name}
            </Text>
            {user.email && (
              <Caption1 as="p" className={s.muted}>
                {user.email}
              </Caption1>
            )}
          </div>
        </div>
        {flow.error ? (
          <MessageBar intent="error" role="alert">
            <MessageBarBody>{errorMessage(flow.error)}</MessageBarBody>
          </MessageBar>
        ) : !flow.data ? (
          <Spinner size="small" label="Loading your settings" />
        ) : (
          // keyed by the flow: a new flow (expired, or after a fresh sign-in) starts the forms from its values
          <div className={s.root} key={flow.data.id}>
            <NameForm flow={flow.data} />
            <PasswordChangeForm email={user.email} />
            <Text as="h2" size={500} weight="semibold" className={s.group}>
              Two-step sign-in
            </Text>
            <AuthenticatorSection flow={flow.data} />
            <RecoveryCodesSection flow={flow.data} />
            <SecurityKeysSection flow={flow.data} />
          </div>
        )}
        <SessionsSection refreshMs={sessionsRefreshMs} />
        <ActivitySection personId={user.id} />
      </div>
    </Page>
  );
}
