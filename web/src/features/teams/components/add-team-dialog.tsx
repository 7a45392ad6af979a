import { useEffect, useId } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Field, Input, makeStyles, Spinner, tokens } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import { toast } from '../../../lib/toast';
import { TeamForm, useCreateTeam, type Team } from '../api';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
});

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
  const s = useStyles();
  const formId = useId();
  const create = useCreateTeam();
  const form = useForm({ resolver: zodResolver(TeamForm), defaultValues: EMPTY });
  const { errors } = form.formState;

  useEffect(() => {
    if (!open) return;
    form.reset(EMPTY);
    // Fluent's Dialog focuses its first focusable element (the close button) once open: move on to the first field
    const timer = setTimeout(() => form.setFocus('name'));
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const onSubmit = form.handleSubmit((values) => {
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
  });

  return (
    <AppDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Add Team"
      size="small"
      actions={
        <>
          <Button appearance="secondary" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button
            appearance="primary"
            type="submit"
            form={formId}
            disabled={create.isPending}
            icon={create.isPending ? <Spinner size="tiny" /> : undefined}
          >
            {create.isPending ? 'Saving…' : 'Save'}
          </Button>
        </>
      }
    >
      <form id={formId} className={s.form} onSubmit={onSubmit} noValidate aria-label="Add Team">
        <Field label="Name" required validationMessage={errors.name?.message}>
          <Controller
            control={form.control}
            name="name"
            render={({ field }) => (
              <Input
                autoComplete="off"
               
                value={field.value}
                onChange={(_, d) => field.onChange(d.value)}
                onBlur={field.onBlur}
                ref={field.ref}
                name={field.name}
              />
            )}
          />
        </Field>
        <Field
          label="Icon"
          validationMessage={errors.icon?.message}
          hint="An icon name such as kubernetes or database (optional)."
        >
          <Controller
            control={form.control}
            name="icon"
            render={({ field }) => (
              <Input
                autoComplete="off"
                value={field.value}
                onChange={(_, d) => field.onChange(d.value)}
                onBlur={field.onBlur}
                ref={field.ref}
                name={field.name}
              />
            )}
          />
        </Field>
      </form>
    </AppDialog>
  );
}
