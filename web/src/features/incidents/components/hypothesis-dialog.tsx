import { useEffect } from 'react';
import { z } from 'zod';
import { FormDialog, useZodForm } from '../../../components/forms/form-dialog';
import { SelectField, TextField } from '../../../components/forms/form-fields';
import { requiredText } from '../../../lib/validation';
import type { Hypothesis } from '../api';
import { humanize, HYPOTHESIS_STATUSES, type HypothesisType } from '../model';
import { useCreateHypothesis } from '../work-api';

const HypothesisForm = z.object({ title: requiredText().max(500, 'Title is too long'), status: z.enum(HYPOTHESIS_STATUSES) });
type HypothesisForm = z.infer<typeof HypothesisForm>;

export interface HypothesisDialogProps {
  incidentId: string;
  currentUserId: string;
  /** The node it goes under (absent for a root hypothesis). */
  parent?: Pick<Hypothesis, 'id' | 'title'>;
  type: HypothesisType;
  /** `true` when something was added. */
  onClose: (added?: boolean) => void;
}

/** Adds a root hypothesis, a factor under a root, or a solution under a factor (status possible by default). */
export function HypothesisDialog({ incidentId, currentUserId, parent, type, onClose }: HypothesisDialogProps) {
  const create = useCreateHypothesis(incidentId, currentUserId);
  const form = useZodForm(HypothesisForm, { title: '', status: 'possible' });
  useEffect(() => {
    const t = setTimeout(() => form.setFocus('title'));
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const label = type === 'root' ? 'Add hypothesis' : `Add ${type}`;
  return (
    <FormDialog
      open
      onOpenChange={(o) => !o && onClose(false)}
      title={parent ? `${label} to “${parent.title}”` : label}
      form={form}
      onSubmit={(v) => create.mutate({ parent_id: parent?.id ?? null, type, title: v.title, status: v.status }, { onSuccess: () => onClose(true) })}
      submitLabel="Add"
      busy={create.isPending}
      busyLabel="Adding…"
    >
      <TextField<HypothesisForm> name="title" label="Title" required />
      <SelectField<HypothesisForm> name="status" label="Status" required options={HYPOTHESIS_STATUSES.map((v) => ({ value: v, label: humanize(v) }))} />
    </FormDialog>
  );
}
