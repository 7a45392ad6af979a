import { useLocation } from 'wouter';
import { Caption1, makeStyles, MenuDivider, MenuGroup, MenuGroupHeader, MenuItem, MenuList, tokens } from '@fluentui/react-components';
import { ArrowDownload20Regular, Person20Regular, SignOut20Regular } from '@fluentui/react-icons';
import { primaryRole } from '@contracts/rbac-table';
import { useSignOut } from '../../features/organizations/sign-out';
import { FRONTEND_VERSION } from '../../lib/brand';
import { paths } from '../paths';
import { useSession } from '../session-context';

const useStyles = makeStyles({
  greeting: { fontSize: tokens.fontSizeBase300, color: tokens.colorNeutralForeground1 },
  versions: {
    display: 'flex',
    flexDirection: 'column',
    padding: `${tokens.spacingVerticalXS} ${tokens.spacingHorizontalS}`,
    color: tokens.colorNeutralForeground3,
  },
});

/**
 * The avatar menu's items: greeting, profile, kubeconfig, versions, sign out. Loaded on demand by user-menu.tsx
 * (sign-out brings the auth contracts and zod along).
 */
export function UserMenuList({ name, onKubeconfig }: { name: string; onKubeconfig: () => void }) {
  const s = useStyles();
  const session = useSession();
  const [, navigate] = useLocation();
  // the menu (and this component) closes on the click: mutate()'s own callbacks would be dropped with it, the
  // returned promise is not; hosted mode goes on to the provider's end-session page when it offers one
  const { signOut, pending: signingOut } = useSignOut();

  return (
    <MenuList>
      <MenuGroup>
        <MenuGroupHeader className={s.greeting}>Hi, {name}</MenuGroupHeader>
        <Caption1 className={s.versions}>{primaryRole(session.roles)}</Caption1>
      </MenuGroup>
      <MenuDivider />
      <MenuItem icon={<Person20Regular />} onClick={() => navigate(paths.profileSettings)}>
        Your Profile
      </MenuItem>
      <MenuItem icon={<ArrowDownload20Regular />} onClick={onKubeconfig}>
        Download kubeconfig
      </MenuItem>
      <MenuDivider />
      <div className={s.versions} role="presentation">
        <Caption1>Frontend v{FRONTEND_VERSION}</Caption1>
        <Caption1>Backend v{session.about.appVersion}</Caption1>
      </div>
      <MenuDivider />
      <MenuItem icon={<SignOut20Regular />} onClick={signOut} disabled={signingOut}>
        Sign out
      </MenuItem>
    </MenuList>
  );
}
