import { useEffect } from 'react';
import { FormDialog, useZodForm } from '../../../components/forms/form-dialog';
import { TextField } from '../../../components/forms/form-fields';
import { toast } from '../../../lib/toast';
import { TeamForm, useCreateTeam, useUpdateTeam, type Team } from './api';

export interface TeamDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Editing this team; absent: adding one. */
  team?: Pick<Team, 'id' | 'name' | 'icon'>;
  /** Team names already taken (the database would refuse a duplicate with a less helpful message). */
  existing: Pick<Team, 'id' | 'name'>[];
  /** The creator recorded on a new team (not needed to edit one). */
  currentUserId?: string;
  /** After adding: the new team opens so members can be added. */
  onCreated?: (id: string) => void;
}

/** Add Team or edit one: name and icon (spec 001, section 4: "Update" when editing, otherwise "Save"). */
export function TeamDialog({ open, onOpenChange, team, existing, currentUserId, onCreated }: TeamDialogProps) {
  const create = useCreateTeam();
  const update = useUpdateTeam(team?.id ?? '');
  const initial = { name: team?.name ?? '', icon: team?.icon ?? '' };
  const form = useZodForm(TeamForm, initial);

  useEffect(() => {
    if (!open) return;
    form.reset(initial);
    // Fluent's Dialog focuses its first focusable element (the close button) once open: move on to the first field
    const timer = setTimeout(() => form.setFocus('name'));
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const onSubmit = (values: TeamForm) => {
    const taken = existing.some((t) => t.id !== team?.id && t.name.toLowerCase() === values.name.toLowerCase());
    if (taken) {
      form.setError('name', { message: `A team named ${values.name} already exists` });
      return;
    }
    if (team) {
      update.mutate(values, { onSuccess: () => onOpenChange(false) });
      return;
    }
    if (!currentUserId) return;
    create.mutate(
      { form: values, createdBy: currentUserId },
      {
        onSuccess: (created) => {
          toast.success(`${created.name} created successfully`);
          onOpenChange(false);
          onCreated?.(created.id);
        },
      },
    );
  };

  return (
    <FormDialog
      open={open}
      onOpenChange={onOpenChange}
      title={team ? 'Edit Team' : 'Add Team'}
      form={form}
      onSubmit={onSubmit}
      submitLabel={team ? 'Update' : 'Save'}
      busy={create.isPending || update.isPending}
    >
      <TextField<TeamForm> name="name" label="Name" required />
      <TextField<TeamForm> name="icon" label="Icon" hint="An icon name such as kubernetes or database (optional)." />
    </FormDialog>
  );
}
