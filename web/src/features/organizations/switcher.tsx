import { useLocation } from 'wouter';
import {
  Button,
  makeStyles,
  Menu,
  MenuGroup,
  MenuGroupHeader,
  MenuItemRadio,
  MenuList,
  MenuPopover,
  MenuTrigger,
  tokens,
  type MenuProps,
} from '@fluentui/react-components';
import { Building20Regular, ChevronDown16Regular } from '@fluentui/react-icons';
import { errorMessage } from '../../lib/api-client';
import { toast } from '../../lib/toast';
import { paths } from '../../app/paths';
import { useSwitchOrganization } from './api';
import { useHostedOrganizations } from './context';

const useStyles = makeStyles({
  name: { maxWidth: '200px', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  roles: { color: tokens.colorNeutralForeground3, marginInlineStart: tokens.spacingHorizontalS },
});

/**
 * Hosted mode's top-bar organisation switcher: the caller's organisations, the active one checked. Choosing another
 * switches the session's organisation (and so its roles) and lands on /organizations/orgs-switched.
 */
export function OrganizationSwitcher() {
  const s = useStyles();
  const hosted = useHostedOrganizations();
  const [, navigate] = useLocation();
  const switchTo = useSwitchOrganization();
  if (!hosted?.active) return null;
  const { active, organizations } = hosted;
  const onChange: MenuProps['onCheckedValueChange'] = (_, { checkedItems }) => {
    const id = checkedItems[0];
    if (!id || id === active.id) return;
    switchTo.mutateAsync(id).then(
      () => navigate(paths.orgsSwitched),
      (err: unknown) => toast.error(`Could not switch organization: ${errorMessage(err)}`),
    );
  };
  return (
    <Menu positioning="below-end" checkedValues={{ organization: [active.id] }} onCheckedValueChange={onChange}>
      <MenuTrigger disableButtonEnhancement>
        <Button
          appearance="subtle"
          icon={<Building20Regular />}
          iconPosition="before"
          aria-label={`Organization: ${active.name}. Switch organization`}
          disabled={switchTo.isPending}
        >
          <span className={s.name}>{active.name}</span>
          <ChevronDown16Regular />
        </Button>
      </MenuTrigger>
      <MenuPopover>
        <MenuList>
          <MenuGroup>
            <MenuGroupHeader>Switch organization</MenuGroupHeader>
            {organizations.map((org) => (
              <MenuItemRadio key={org.id} name="organization" value={org.id}>
                {org.name}
                {org.roles.length > 0 && <span className={s.roles}>{org.roles.join(', ')}</span>}
              </MenuItemRadio>
            ))}
          </MenuGroup>
        </MenuList>
      </MenuPopover>
    </Menu>
  );
}
