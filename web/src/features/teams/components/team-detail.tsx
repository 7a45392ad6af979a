import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import {
  Breadcrumb,
  BreadcrumbButton,
  Button,
  BreadcrumbDivider,
  BreadcrumbItem,
  Caption1,
  makeStyles,
  Spinner,
  Text,
  tokens,
} from '@fluentui/react-components';
import { Delete20Regular, Edit20Regular, ErrorCircle24Regular, PeopleTeam24Regular } from '@fluentui/react-icons';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { formatAge, formatDateTime } from '../../../lib/format';
import { useDeleteTeam, useTeam, useTeams } from '../api';
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
  id: string;
  /** Write on `database`: add and remove members. */
  canWrite: boolean;
  teamsHref: string;
}

/** /settings/teams/{id}: breadcrumb, the team, and its members. */
export function TeamDetail({ id, canWrite, teamsHref }: TeamDetailProps) {
  const s = useStyles();
  const team = useTeam(id);
  const teams = useTeams();
  const remove = useDeleteTeam();
  const [, navigate] = useLocation();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const crumbs = (name?: string) => (
    <Breadcrumb aria-label="Breadcrumb" size="medium">
      <BreadcrumbItem>
        <Link href={teamsHref} asChild>
          <BreadcrumbButton as="a" href={teamsHref}>
            Teams
          </BreadcrumbButton>
        </Link>
      </BreadcrumbItem>
      {name && (
        <>
          <BreadcrumbDivider />
          <BreadcrumbItem>
            <BreadcrumbButton current>{name}</BreadcrumbButton>
          </BreadcrumbItem>
        </>
      )}
    </Breadcrumb>
  );

  if (team.isLoading) {
    return (
      <Page title="Team">
        <Spinner label="Loading…" />
      </Page>
    );
  }
  if (!team.data) {
    return (
      <Page title="Team">
        {crumbs()}
        <EmptyState
          icon={team.error ? <ErrorCircle24Regular /> : <PeopleTeam24Regular />}
          title={team.error ? 'The team could not be loaded' : 'No resources found'}
          description={
            team.error ? errorMessage(team.error) : 'There is no team with this id; it may have been deleted.'
          }
          role={team.error ? 'alert' : 'status'}
        />
      </Page>
    );
  }
  const t = team.data;
  return (
    <Page
      title={t.name}
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
    >
      {crumbs(t.name)}
      <div className={s.header}>
        <TeamIcon team={t} size={48} />
        <div>
          <Text as="h2" size={600} weight="semibold" className={s.heading}>
            {t.name}
          </Text>
          <Caption1 as="p" className={s.facts} title={formatDateTime(t.created_at)}>
            {[
              t.source && `Source ${t.source}`,
              t.created_by && `created by ${t.created_by.name}`,
              `created ${formatAge(t.created_at)}`,
            ]
              .filter(Boolean)
              .join(' · ')}
          </Caption1>
        </div>
      </div>
      <TeamMembersPanel team={t} canWrite={canWrite} />
      {canWrite && <TeamDialog open={editing} onOpenChange={setEditing} team={t} existing={teams.data ?? []} />}
      {deleting && (
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
    </Page>
  );
}
