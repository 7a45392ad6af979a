import { Field, Input, MessageBar, MessageBarBody } from '@fluentui/react-components';
import { Controller } from 'react-hook-form';
import { FormDialog, useZodForm } from '../../../components/forms/form-dialog';
import { TextField } from '../../../components/forms/form-fields';
import { useUpdateSilence } from './api';
import { editSilenceSchema, silenceTarget, toLocalInput, type EditSilenceForm, type SilenceRow } from './model';

export interface EditSilenceDialogProps {
  silence: SilenceRow;
  canWrite: boolean;
  onClose: () => void;
}

/** Edit Notification Silence: the reason and the end (empty: indefinitely). Read-only without write or for CR rows. */
export function EditSilenceDialog({ silence, canWrite, onClose }: EditSilenceDialogProps) {
  const form = useZodForm(editSilenceSchema, { description: silence.description ?? '', until: toLocalInput(silence.until) });
  const update = useUpdateSilence();
  const editable = canWrite && (!silence.source || silence.source === 'UI');
  const target = silenceTarget(silence);
  const onSubmit = (v: EditSilenceForm) => {
    if (!editable) return onClose();
    update.mutate(
      { id: silence.id, body: { description: v.description.trim() || null, until: v.until ? new Date(v.until).toISOString() : null } },
      { onSuccess: onClose },
    );
  };
  return (
    <FormDialog
      open
      onOpenChange={(o) => !o && onClose()}
      title="Edit Notification Silence"
      size="medium"
      form={form}
      onSubmit={onSubmit}
      submitLabel={editable ? 'Update' : 'Close'}
      busy={update.isPending}
    >
      {!editable && (
        <MessageBar intent="info">
          <MessageBarBody>
            {silence.source && silence.source !== 'UI'
              ? `Linked to ${silence.source}: this silence is read-only here.`
              : 'You can view this silence; changing it needs write access to notifications.'}
          </MessageBarBody>
        </MessageBar>
      )}
      <Field label="Resource">
        <Input readOnly value={target.kind ? `${target.kind}: ${target.name}` : ''} />
      </Field>
      <TextField<EditSilenceForm> name="description" label="Reason" multiline disabled={!editable} />
      <Controller
        control={form.control}
        name="until"
        render={({ field, fieldState }) => (
          <Field label="Until" hint="Leave empty to silence indefinitely" validationMessage={fieldState.error?.message}>
            <Input
              ref={field.ref}
              name={field.name}
              type="datetime-local"
              value={field.value}
              onChange={(_, d) => field.onChange(d.value)}
              onBlur={field.onBlur}
              disabled={!editable}
            />
          </Field>
        )}
      />
    </FormDialog>
  );
}
