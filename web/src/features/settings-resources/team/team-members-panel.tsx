import { useMemo, useState } from 'react';
import { Button, makeStyles, Text, tokens, Tooltip } from '@fluentui/react-components';
import { PersonAdd20Regular, PersonDelete20Regular } from '@fluentui/react-icons';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { DataTable } from '../../../components/data-table/data-table';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { EmptyState } from '../../../components/empty-state';
import { PersonAvatar } from '../../../components/status/person-avatars';
import { errorMessage } from '../../../lib/api-client';
import { useRemoveTeamMember, useTeamMembers, type Team, type TeamMember } from './api';
import { AddMembersDialog } from './add-members-dialog';

export const NO_MEMBERS_TEXT = "You haven't added any team members to the team yet.";

const useStyles = makeStyles({
  bar: {
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'space-between',
    gap: tokens.spacingHorizontalM,
    marginBottom: tokens.spacingVerticalS,
  },
  heading: { margin: 0, display: 'block' },
  count: { color: tokens.colorNeutralForeground3, fontWeight: tokens.fontWeightRegular },
});

const col = dataTableColumns<TeamMember>();
const NONE: TeamMember[] = [];

/** The team's members: list, Add Members, Remove user (spec 001, "Team members panel"). */
export function TeamMembersPanel({ team, canWrite }: { team: Team; canWrite: boolean }) {
  const s = useStyles();
  const members = useTeamMembers(team.id);
  const remove = useRemoveTeamMember(team.id);
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<TeamMember | null>(null);

  const columns = useMemo<DataTableColumn<TeamMember>[]>(() => {
    const list: DataTableColumn<TeamMember>[] = [
      col.accessor((m) => m.person.name, {
        id: 'name',
        header: 'Name',
        sortFn: 'text',
        cell: ({ row }) => <PersonAvatar person={row.original.person} showName />,
      }),
      col.accessor((m) => m.person.email ?? '', { id: 'email', header: 'Email' }),
    ];
    if (canWrite) {
      list.push(
        col.display({
          id: 'actions',
          header: 'Actions',
          meta: { width: '90px' },
          cell: ({ row }) => (
            <Tooltip content={`Remove ${row.original.person.name} from the team`} relationship="label">
              <Button
                appearance="subtle"
                size="small"
                icon={<PersonDelete20Regular />}
                onClick={() => setRemoving(row.original)}
              />
            </Tooltip>
          ),
        }),
      );
    }
    return list;
  }, [canWrite, s]);

  return (
    <section aria-labelledby="team-members-heading">
      <div className={s.bar}>
        <Text as="h3" id="team-members-heading" size={500} weight="semibold" className={s.heading}>
          Members <span className={s.count}>{members.data ? `(${members.data.length})` : ''}</span>
        </Text>
        {canWrite && (
          <Button appearance="primary" icon={<PersonAdd20Regular />} onClick={() => setAdding(true)}>
            Add Members
          </Button>
        )}
      </div>
      {members.error && !members.data ? (
        <EmptyState title="Members could not be loaded" description={errorMessage(members.error)} role="alert" />
      ) : (
        <DataTable
          label={`Members of ${team.name}`}
          columns={columns}
          data={members.data ?? NONE}
          getRowId={(m) => m.person_id}
          loading={members.isLoading}
          defaultSort={{ id: 'name' }}
          emptyMessage={NO_MEMBERS_TEXT}
          paginate={false}
        />
      )}
      {canWrite && (
        <AddMembersDialog team={team} members={members.data ?? NONE} open={adding} onOpenChange={setAdding} />
      )}
      {removing && (
        <ConfirmDialog
          open
          title="Remove team member"
          description={`Remove ${removing.person.name} from ${team.name}?`}
          confirmLabel="Remove"
          danger
          busy={remove.isPending}
          onConfirm={() => remove.mutate(removing, { onSuccess: () => setRemoving(null) })}
          onCancel={() => setRemoving(null)}
        />
      )}
    </section>
  );
}
