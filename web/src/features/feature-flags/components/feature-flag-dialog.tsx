import { useEffect } from 'react';
import { makeStyles, Text, tokens } from '@fluentui/react-components';
import { FormDialog, useZodForm } from '../../../components/forms/form-dialog';
import { TextField } from '../../../components/forms/form-fields';
import { FeatureFlagForm, useAddFeatureFlag, useUpdateFeatureFlag, type FeatureFlag } from '../api';

const useStyles = makeStyles({
  muted: { color: tokens.colorNeutralForeground2 },
  code: { fontFamily: tokens.fontFamilyMonospace },
});

export interface FeatureFlagDialogProps {
  open: boolean;
  /** Editing this flag; absent: adding one. */
  flag?: FeatureFlag;
  existing: FeatureFlag[];
  currentUserId: string;
  onClose: () => void;
}

/** Add or edit a feature flag; the name cannot change once the flag exists. */
export function FeatureFlagDialog({ open, flag, existing, currentUserId, onClose }: FeatureFlagDialogProps) {
  const s = useStyles();
  const add = useAddFeatureFlag();
  const update = useUpdateFeatureFlag();
  const form = useZodForm(FeatureFlagForm, { name: '', value: '' });

  useEffect(() => {
    if (!open) return;
    form.reset({ name: flag?.name ?? '', value: flag?.value ?? '' });
    // Fluent's Dialog focuses its first focusable element (the close button) once open: move on to the first field
    const timer = setTimeout(() => form.setFocus(flag ? 'value' : 'name'));
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, flag]);

  const onSubmit = (values: FeatureFlagForm) => {
    if (flag) return update.mutate({ ...values, name: flag.name }, { onSuccess: onClose });
    if (existing.some((f) => f.name === values.name)) {
      form.setError('name', { message: `${values.name} already exists; edit it instead` });
      return;
    }
    add.mutate({ form: values, createdBy: currentUserId }, { onSuccess: onClose });
  };

  return (
    <FormDialog
      open={open}
      onOpenChange={(o) => !o && onClose()}
      title={flag ? 'Edit Feature Flag' : 'Add Feature Flag'}
      form={form}
      onSubmit={onSubmit}
      submitLabel={flag ? 'Update' : 'Save'}
      busy={add.isPending || update.isPending}
    >
      <Text className={s.muted}>
        A flag named <span className={s.code}>{'{feature}'}.disable</span> with the value{' '}
        <span className={s.code}>true</span> turns that feature off for everyone, for example{' '}
        <span className={s.code}>health.disable</span>.
      </Text>
      <TextField<FeatureFlagForm> name="name" label="Name" required disabled={!!flag} />
      <TextField<FeatureFlagForm> name="value" label="Value" required />
    </FormDialog>
  );
}
