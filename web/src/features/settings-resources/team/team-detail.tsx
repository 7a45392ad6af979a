import { useState } from 'react';
import { useLocation } from 'wouter';
import {
  Button,
  Caption1,
  makeStyles,
  Spinner,
  Text,
  tokens,
} from '@fluentui/react-components';
import { Delete20Regular, Edit20Regular } from '@fluentui/react-icons';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { formatAge, formatDateTime } from '../../../lib/format';
import { useResource } from '../api';
import { DetailFrame } from '../components/detail-frame';
import { JobHistoryTable } from '../components/job-history-table';
import { ResourceEditor } from '../components/resource-editor';
import { listHref, type ResourceDescriptor } from '../descriptors';
import { useDeleteTeam, useTeam, useTeams } from './api';
import { TeamDialog } from './team-dialog';
import { TeamIcon } from './team-icon';
import { TeamMembersPanel } from './team-members-panel';

const useStyles = makeStyles({
  header: {
    display: 'flex',
    alignItems: 'center',
    gap: tokens.spacingHorizontalM,
    margin: `${tokens.spacingVerticalM} 0 ${tokens.spacingVerticalL}`,
  },
  heading: { margin: 0, display: 'block' },
  facts: { display: 'block', margin: 0, color: tokens.colorNeutralForeground3 },
});

export interface TeamDetailProps {
  descriptor: ResourceDescriptor;
  id: string;
  /** Write on `database`: edit, delete, add and remove members. */
  canWrite: boolean;
  currentUserId: string;
}

/** /settings/teams/{id}: the team, its members (the first tab), its spec and job history. */
export function TeamDetail({ descriptor: d, id, canWrite, currentUserId }: TeamDetailProps) {
  const s = useStyles();
  const team = useTeam(id);
  const teams = useTeams();
  const row = useResource(d, id);
  const remove = useDeleteTeam();
  const [, navigate] = useLocation();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const t = team.data;
  const teamsHref = listHref(d);
  return (
    <>
    <DetailFrame
      descriptor={d}
      state={{ loading: team.isLoading, error: team.error, name: t?.name }}
      defaultTab="manageTeam"
      onRefresh={() => void team.refetch()}
      refreshing={team.isFetching}
      extra={
        canWrite && (
          <>
            <Button icon={<Edit20Regular />} onClick={() => setEditing(true)}>
              Edit
            </Button>
            <Button icon={<Delete20Regular />} onClick={() => setDeleting(true)}>
              Delete
            </Button>
          </>
        )
      }
      header={
        t && (
          <div className={s.header}>
            <TeamIcon team={t} size={48} />
            <div>
              <Text as="h2" size={600} weight="semibold" className={s.heading}>
                {t.name}
              </Text>
              <Caption1 as="p" className={s.facts} title={formatDateTime(t.created_at)}>
                {[t.source && `Source ${t.source}`, t.created_by && `created by ${t.created_by.name}`, `created ${formatAge(t.created_at)}`]
                  .filter(Boolean)
                  .join(' · ')}
              </Caption1>
            </div>
          </div>
        )
      }
      tabs={
        t
          ? [
              { value: 'manageTeam', label: 'Members', content: <TeamMembersPanel team={t} canWrite={canWrite} /> },
              {
                value: 'spec',
                label: 'Spec',
                content: row.data ? (
                  <ResourceEditor key={`${row.data.id}:${row.dataUpdatedAt}`} descriptor={d} row={row.data} readOnly={!canWrite} currentUserId={currentUserId} />
                ) : (
                  <Spinner size="small" label="Loading…" />
                ),
              },
              { value: 'jobHistory', label: 'Job History', content: <JobHistoryTable resourceId={t.id} /> },
            ]
          : []
      }
    />
      {canWrite && t && <TeamDialog open={editing} onOpenChange={setEditing} team={t} existing={teams.data ?? []} />}
      {deleting && t && (
        <ConfirmDialog
          open
          title="Delete Team"
          description={`Delete ${t.name}? It leaves the teams list; its members keep their accounts.`}
          confirmLabel="Delete"
          danger
          busy={remove.isPending}
          onConfirm={() => remove.mutate(t, { onSuccess: () => navigate(teamsHref, { replace: true }) })}
          onCancel={() => setDeleting(false)}
        />
      )}
    </>
  );
}
