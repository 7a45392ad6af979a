import { useState } from 'react';
import { useLocation } from 'wouter';
import {
  Avatar,
  Button,
  Caption1,
  makeStyles,
  Menu,
  MenuDivider,
  MenuGroup,
  MenuGroupHeader,
  MenuItem,
  MenuList,
  MenuPopover,
  MenuTrigger,
  tokens,
} from '@fluentui/react-components';
import { ArrowDownload20Regular, Person20Regular, SignOut20Regular } from '@fluentui/react-icons';
import { primaryRole } from '@contracts/rbac';
import { useLogout } from '../../features/auth/api';
import { FRONTEND_VERSION } from '../../lib/brand';
import { paths } from '../paths';
import { useSession } from '../session-context';
import { KubeconfigDialog } from './kubeconfig-dialog';

const useStyles = makeStyles({
  greeting: { fontSize: tokens.fontSizeBase300, color: tokens.colorNeutralForeground1 },
  versions: {
    display: 'flex',
    flexDirection: 'column',
    padding: `${tokens.spacingVerticalXS} ${tokens.spacingHorizontalS}`,
    color: tokens.colorNeutralForeground3,
  },
});

/** Avatar menu: greeting, profile, kubeconfig, versions, sign out. */
export function UserMenu() {
  const s = useStyles();
  const session = useSession();
  const [, navigate] = useLocation();
  const [kubeconfig, setKubeconfig] = useState(false);
  const logout = useLogout();
  const name = session.user.name || session.user.email || 'there';
  const signOut = () => logout.mutate(undefined, { onSettled: () => navigate(paths.login, { replace: true }) });

  return (
    <>
      <Menu positioning="below-end">
        <MenuTrigger disableButtonEnhancement>
          <Button appearance="subtle" aria-label={`Account: ${name}`} shape="circular" style={{ minWidth: 0, padding: 2 }}>
            <Avatar name={name} size={28} color="brand" />
          </Button>
        </MenuTrigger>
        <MenuPopover>
          <MenuList>
            <MenuGroup>
              <MenuGroupHeader className={s.greeting}>Hi, {name}</MenuGroupHeader>
              <Caption1 className={s.versions}>{primaryRole(session.roles)}</Caption1>
            </MenuGroup>
            <MenuDivider />
            <MenuItem icon={<Person20Regular />} onClick={() => navigate(paths.profileSettings)}>
              Your Profile
            </MenuItem>
            <MenuItem icon={<ArrowDownload20Regular />} onClick={() => setKubeconfig(true)}>
              Download kubeconfig
            </MenuItem>
            <MenuDivider />
            <div className={s.versions} role="presentation">
              <Caption1>Frontend v{FRONTEND_VERSION}</Caption1>
              <Caption1>Backend v{session.about.appVersion}</Caption1>
            </div>
            <MenuDivider />
            <MenuItem icon={<SignOut20Regular />} onClick={signOut} disabled={logout.isPending}>
              Sign out
            </MenuItem>
          </MenuList>
        </MenuPopover>
      </Menu>
      <KubeconfigDialog open={kubeconfig} onOpenChange={setKubeconfig} />
    </>
  );
}
