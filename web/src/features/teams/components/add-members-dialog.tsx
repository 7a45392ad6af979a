import { useEffect, useMemo, useState } from 'react';
import {
  Avatar,
  Button,
  Field,
  makeStyles,
  Spinner,
  Tag,
  TagPicker,
  TagPickerControl,
  TagPickerGroup,
  TagPickerInput,
  TagPickerList,
  TagPickerOption,
  tokens,
  useTagPickerFilter,
} from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import { useAddTeamMembers, usePickablePeople, type PersonRef, type Team, type TeamMember } from '../api';

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, minHeight: '160px' },
});

export interface AddMembersDialogProps {
  team: Team;
  members: TeamMember[];
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/** Add Members: pick several people (not already in the team) and add them in one go. */
export function AddMembersDialog({ team, members, open, onOpenChange }: AddMembersDialogProps) {
  const s = useStyles();
  const people = usePickablePeople(open);
  const add = useAddTeamMembers(team.id);
  const [selected, setSelected] = useState<string[]>([]);
  const [query, setQuery] = useState('');
  const [error, setError] = useState<string>();

  useEffect(() => {
    if (!open) return;
    setSelected([]);
    setQuery('');
    setError(undefined);
  }, [open]);

  const candidates = useMemo(() => {
    const inTeam = new Set(members.map((m) => m.person_id));
    return (people.data ?? []).filter((p) => !inTeam.has(p.id));
  }, [people.data, members]);
  const byId = useMemo(() => new Map(candidates.map((p) => [p.id, p])), [candidates]);

  const options = useTagPickerFilter({
    query,
    options: candidates.map((p) => p.id),
    noOptionsElement: (
      <TagPickerOption value="no-matches" aria-disabled>
        {people.isLoading
          ? 'Loading people…'
          : candidates.length
            ? 'No one matches'
            : 'Everyone is already in the team'}
      </TagPickerOption>
    ),
    renderOption: (id) => {
      const p = byId.get(id)!;
      return (
        <TagPickerOption
          key={id}
          value={id}
          text={p.name}
          secondaryContent={p.email ?? undefined}
          media={<Avatar name={p.name} image={{ src: p.avatar ?? undefined }} size={24} aria-hidden />}
        >
          {p.name}
        </TagPickerOption>
      );
    },
    filter: (id) => !selected.includes(id) && (byId.get(id)?.name ?? '').toLowerCase().includes(query.toLowerCase()),
  });

  const submit = () => {
    const picked = selected.map((id) => byId.get(id)).filter((p): p is PersonRef => !!p);
    if (!picked.length) {
      setError('Select at least one person');
      return;
    }
    add.mutate(picked, { onSuccess: () => onOpenChange(false) });
  };

  return (
    <AppDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Add Members"
      size="small"
      actions={
        <>
          <Button appearance="secondary" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button
            appearance="primary"
            onClick={submit}
            disabled={add.isPending}
            icon={add.isPending ? <Spinner size="tiny" /> : undefined}
          >
            {add.isPending ? 'Adding…' : 'Add'}
          </Button>
        </>
      }
    >
      <div className={s.body}>
        <Field label={`People to add to ${team.name}`} validationMessage={error}>
          <TagPicker
            selectedOptions={selected}
            onOptionSelect={(_, d) => {
              if (d.value === 'no-matches') return;
              setSelected(d.selectedOptions);
              setQuery('');
              setError(undefined);
            }}
          >
            <TagPickerControl>
              <TagPickerGroup aria-label="Selected people">
                {selected.map((id) => {
                  const p = byId.get(id);
                  return (
                    <Tag key={id} shape="rounded" value={id} media={<Avatar name={p?.name} size={20} aria-hidden />}>
                      {p?.name ?? id}
                    </Tag>
                  );
                })}
              </TagPickerGroup>
              <TagPickerInput
                aria-label="Search people"
                placeholder={selected.length ? '' : 'Search people'}
                value={query}
                onChange={(e) => setQuery(e.target.value)}
              />
            </TagPickerControl>
            <TagPickerList>{options}</TagPickerList>
          </TagPicker>
        </Field>
      </div>
    </AppDialog>
  );
}
