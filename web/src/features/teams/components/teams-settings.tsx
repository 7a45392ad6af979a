import { useState } from 'react';
import { useLocation } from 'wouter';
import { Button } from '@fluentui/react-components';
import { Add20Regular } from '@fluentui/react-icons';
import { Page } from '../../../components/page';
import { useTeams } from '../api';
import { TeamDialog } from './team-dialog';
import { TeamTable } from './team-table';

export interface TeamsSettingsProps {
  /** Write on `database`: Add Team. */
  canWrite: boolean;
  currentUserId: string;
  teamHref: (id: string) => string;
}

/** Settings → Teams: the teams with their member counts; a row opens the team. */
export function TeamsSettings({ canWrite, currentUserId, teamHref }: TeamsSettingsProps) {
  const teams = useTeams();
  const [, navigate] = useLocation();
  const [adding, setAdding] = useState(false);
  return (
    <Page
      title="Teams"
      onRefresh={() => void teams.refetch()}
      refreshing={teams.isFetching}
      extra={
        canWrite && (
          <Button appearance="primary" icon={<Add20Regular />} onClick={() => setAdding(true)}>
            Add Team
          </Button>
        )
      }
    >
      <TeamTable
        teams={teams.data}
        loading={teams.isLoading}
        error={teams.error}
        onOpen={(t) => navigate(teamHref(t.id))}
      />
      {canWrite && (
        <TeamDialog
          open={adding}
          onOpenChange={setAdding}
          existing={teams.data ?? []}
          currentUserId={currentUserId}
          onCreated={(id) => navigate(teamHref(id))}
        />
      )}
    </Page>
  );
}
