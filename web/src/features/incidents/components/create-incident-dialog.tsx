import { useEffect } from 'react';
import { makeStyles, tokens } from '@fluentui/react-components';
import { z } from 'zod';
import { FormDialog, useZodForm } from '../../../components/forms/form-dialog';
import { SelectField, TextField } from '../../../components/forms/form-fields';
import { errorMessage } from '../../../lib/api-client';
import { toast } from '../../../lib/toast';
import { requiredText, VALIDATION_MESSAGES } from '../../../lib/validation';
import { useCreateIncident } from '../api';
import { humanize, INCIDENT_DEFAULTS, INCIDENT_SEVERITIES, INCIDENT_STATUSES, INCIDENT_TYPES } from '../model';

const oneOf = (values: readonly string[]) =>
  z.string().refine((v) => values.includes(v), { message: VALIDATION_MESSAGES.required });

/** Spec 000 §5: title required, description optional, severity one of the known ones, status and type required. */
export const CreateIncidentForm = z.object({
  title: requiredText().max(500, 'Title is too long'),
  description: z.string().trim().max(10_000, 'Description is too long'),
  severity: oneOf(INCIDENT_SEVERITIES),
  status: oneOf(INCIDENT_STATUSES),
  type: oneOf(INCIDENT_TYPES),
});
export type CreateIncidentForm = z.infer<typeof CreateIncidentForm>;

const useStyles = makeStyles({
  row: { display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(160px, 1fr))', gap: tokens.spacingHorizontalM },
});

const DEFAULTS: CreateIncidentForm = { title: '', description: '', ...INCIDENT_DEFAULTS };
const options = (values: readonly string[]) => values.map((v) => ({ value: v, label: humanize(v) }));

export interface CreateIncidentDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  currentUserId: string;
  onCreated: (id: string) => void;
}

/** The create-incident modal: defaults open, availability, Low; creates the incident and its root hypothesis. */
export function CreateIncidentDialog({ open, onOpenChange, currentUserId, onCreated }: CreateIncidentDialogProps) {
  const s = useStyles();
  const create = useCreateIncident();
  const form = useZodForm(CreateIncidentForm, DEFAULTS);

  useEffect(() => {
    if (!open) return;
    form.reset(DEFAULTS);
    const t = setTimeout(() => form.setFocus('title'));
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const onSubmit = (values: CreateIncidentForm) =>
    create.mutate(
      { incident: values, createdBy: currentUserId },
      {
        onSuccess: (created) => {
          toast.success(`${created.incidentId} created successfully`);
          onOpenChange(false);
          onCreated(created.id);
        },
        // the mutation cache toasts the server's message; spec 000 §8: a create failure shows the error
        onError: (err) => form.setError('root', { message: errorMessage(err) }),
      },
    );

  return (
    <FormDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Create Incident"
      size="medium"
      form={form}
      onSubmit={onSubmit}
      submitLabel="Create"
      busy={create.isPending}
      busyLabel="Creating…"
    >
      <TextField<CreateIncidentForm> name="title" label="Title" required placeholder="What is happening?" />
      <TextField<CreateIncidentForm> name="description" label="Description" multiline placeholder="Impact, symptoms, links (optional)" />
      <div className={s.row}>
        <SelectField<CreateIncidentForm> name="severity" label="Severity" required options={options(INCIDENT_SEVERITIES)} />
        <SelectField<CreateIncidentForm> name="status" label="Status" required options={options(INCIDENT_STATUSES)} />
        <SelectField<CreateIncidentForm> name="type" label="Type" required options={options(INCIDENT_TYPES)} />
      </div>
    </FormDialog>
  );
}
