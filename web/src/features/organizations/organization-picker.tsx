import { useState } from 'react';
import { useLocation } from 'wouter';
import { Button, Caption1, makeStyles, Text, tokens } from '@fluentui/react-components';
import { Building20Regular } from '@fluentui/react-icons';
import { FullPageState } from '../../components/full-page-state';
import { errorMessage } from '../../lib/api-client';
import { paths } from '../../app/paths';
import { useSwitchOrganization, type Organization } from './api';

const useStyles = makeStyles({
  list: {
    listStyleType: 'none',
    margin: 0,
    padding: 0,
    display: 'flex',
    flexDirection: 'column',
    gap: tokens.spacingVerticalS,
    width: 'min(420px, 100%)',
  },
  choice: { width: '100%', justifyContent: 'flex-start', textAlign: 'start', padding: tokens.spacingVerticalM },
  label: { display: 'flex', flexDirection: 'column', alignItems: 'flex-start' },
  roles: { color: tokens.colorNeutralForeground3 },
  error: { color: tokens.colorPaletteRedForeground1 },
});

/** The gate's picker: a session without an organisation chooses one, then lands on /organizations/orgs-switched. */
export function OrganizationPicker({
  organizations,
  onSignOut,
  signingOut,
}: {
  organizations: Organization[];
  onSignOut: () => void;
  signingOut: boolean;
}) {
  const s = useStyles();
  const [, navigate] = useLocation();
  const choose = useSwitchOrganization();
  const [chosen, setChosen] = useState<string | null>(null);
  const pick = (id: string) => {
    setChosen(id);
    choose.mutateAsync(id).then(() => navigate(paths.orgsSwitched, { replace: true }), () => setChosen(null));
  };
  return (
    <FullPageState
      title="Choose an organization"
      description="You are a member of several organizations. Choose the one to work in; you can switch later from the top bar."
    >
      <ul className={s.list} aria-label="Your organizations">
        {organizations.map((org) => (
          <li key={org.id}>
            <Button
              className={s.choice}
              icon={<Building20Regular />}
              onClick={() => pick(org.id)}
              disabled={choose.isPending}
              aria-busy={chosen === org.id}
            >
              <span className={s.label}>
                <Text weight="semibold">{org.name}</Text>
                {org.roles.length > 0 && <Caption1 className={s.roles}>{org.roles.join(', ')}</Caption1>}
              </span>
            </Button>
          </li>
        ))}
      </ul>
      {choose.isError && (
        <Text role="alert" className={s.error}>
          {errorMessage(choose.error)}
        </Text>
      )}
      <Button appearance="subtle" onClick={onSignOut} disabled={signingOut}>
        Sign out
      </Button>
    </FullPageState>
  );
}
