import { useEffect, useMemo } from 'react';
import { z } from 'zod';
import { FormDialog, useZodForm } from '../../../components/forms/form-dialog';
import { MultiSelectField } from '../../../components/forms/form-fields';
import { useAddTeamMembers, usePickablePeople, type PersonRef, type Team, type TeamMember } from './api';

const AddMembersForm = z.object({ people: z.array(z.string()).min(1, 'Select at least one person') });
type AddMembersForm = z.infer<typeof AddMembersForm>;

export interface AddMembersDialogProps {
  team: Team;
  members: TeamMember[];
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/** Add Members: pick several people (not already in the team) and add them in one go. */
export function AddMembersDialog({ team, members, open, onOpenChange }: AddMembersDialogProps) {
  const people = usePickablePeople(open);
  const add = useAddTeamMembers(team.id);
  const form = useZodForm(AddMembersForm, { people: [] });

  useEffect(() => {
    if (open) form.reset({ people: [] });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const candidates = useMemo(() => {
    const inTeam = new Set(members.map((m) => m.person_id));
    return (people.data ?? []).filter((p) => !inTeam.has(p.id));
  }, [people.data, members]);
  // the email tells apart two people of the same name
  const options = useMemo(
    () => candidates.map((p) => ({ value: p.id, label: p.email ? `${p.name} (${p.email})` : p.name })),
    [candidates],
  );

  const onSubmit = ({ people: ids }: AddMembersForm) => {
    const picked = ids.map((id) => candidates.find((p) => p.id === id)).filter((p): p is PersonRef => !!p);
    add.mutate(picked, { onSuccess: () => onOpenChange(false) });
  };

  return (
    <FormDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Add Members"
      form={form}
      onSubmit={onSubmit}
      submitLabel="Add"
      busy={add.isPending}
      busyLabel="Adding…"
    >
      <MultiSelectField<AddMembersForm>
        name="people"
        label="People"
        hint={people.isLoading ? 'Loading people…' : `Type to search; everyone already in ${team.name} is left out.`}
        placeholder="Search people"
        options={options}
        required
      />
    </FormDialog>
  );
}
