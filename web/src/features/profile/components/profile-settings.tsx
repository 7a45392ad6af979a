import { Avatar, Caption1, makeStyles, Text, tokens } from '@fluentui/react-components';
import { Page } from '../../../components/page';
import { NameForm } from './name-form';
import { PasswordChangeForm } from './password-change-form';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXL, maxWidth: '640px' },
  who: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalL },
  heading: { margin: 0, display: 'block' },
  muted: { display: 'block', margin: 0, color: tokens.colorNeutralForeground3 },
});

export interface ProfileUser {
  id: string;
  name: string;
  email: string | null;
}

/** Your Profile: your name and your password. */
export function ProfileSettings({ user }: { user: ProfileUser }) {
  const s = useStyles();
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
        <NameForm user={user} />
        <PasswordChangeForm email={user.email} />
      </div>
    </Page>
  );
}
