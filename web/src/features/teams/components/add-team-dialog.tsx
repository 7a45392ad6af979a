import { useEffect } from 'react';
import { FormDialog, useZodForm } from '../../../components/forms/form-dialog';
import { TextField } from '../../../components/forms/form-fields';
import { toast } from '../../../lib/toast';
import { TeamForm, useCreateTeam, type Team } from '../api';

const EMPTY: TeamForm = { name: '', icon: '' };

export interface AddTeamDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Team names already taken (the database would refuse a duplicate with a less helpful message). */
  existing: Pick<Team, 'name'>[];
  currentUserId: string;
  onCreated: (id: string) => void;
}

/** Add Team: name and icon; the new team opens so members can be added. */
export function AddTeamDialog({ open, onOpenChange, existing, currentUserId, onCreated }: AddTeamDialogProps) {
  const create = useCreateTeam();
  const form = useZodForm(TeamForm, EMPTY);

  useEffect(() => {
    if (!open) return;
    form.reset(EMPTY);
    // Fluent's Dialog focuses its first focusable element (the close button) once open: move on to the first field
    const timer = setTimeout(() => form.setFocus('name'));
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const onSubmit = (values: TeamForm) => {
    if (existing.some((t) => t.name.toLowerCase() === values.name.toLowerCase())) {
      form.setError('name', { message: `A team named ${values.name} already exists` });
      return;
    }
    create.mutate(
      { form: values, createdBy: currentUserId },
      {
        onSuccess: (team) => {
          toast.success(`${team.name} created successfully`);
          onOpenChange(false);
          onCreated(team.id);
        },
      },
    );
  };

  return (
    <FormDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Add Team"
      form={form}
      onSubmit={onSubmit}
      busy={create.isPending}
    >
      <TextField<TeamForm> name="name" label="Name" required />
      <TextField<TeamForm> name="icon" label="Icon" hint="An icon name such as kubernetes or database (optional)." />
    </FormDialog>
  );
}
