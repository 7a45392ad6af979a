import { useEffect, useId } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Field, Input, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import { FeatureFlagForm, useAddFeatureFlag, useUpdateFeatureFlag, type FeatureFlag } from '../api';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
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
  const formId = useId();
  const add = useAddFeatureFlag();
  const update = useUpdateFeatureFlag();
  const busy = add.isPending || update.isPending;
  const form = useForm({ resolver: zodResolver(FeatureFlagForm), defaultValues: { name: '', value: '' } });
  const { errors } = form.formState;

  useEffect(() => {
    if (!open) return;
    form.reset({ name: flag?.name ?? '', value: flag?.value ?? '' });
    // Fluent's Dialog focuses its first focusable element (the close button) once open: move on to the first field
    const timer = setTimeout(() => form.setFocus(flag ? 'value' : 'name'));
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, flag]);

  const onSubmit = form.handleSubmit((values) => {
    if (flag) return update.mutate({ ...values, name: flag.name }, { onSuccess: onClose });
    if (existing.some((f) => f.name === values.name)) {
      form.setError('name', { message: `${values.name} already exists; edit it instead` });
      return;
    }
    add.mutate({ form: values, createdBy: currentUserId }, { onSuccess: onClose });
  });

  return (
    <AppDialog
      open={open}
      onOpenChange={(o) => !o && onClose()}
      title={flag ? 'Edit Feature Flag' : 'Add Feature Flag'}
      size="small"
      actions={
        <>
          <Button appearance="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button
            appearance="primary"
            type="submit"
            form={formId}
            disabled={busy}
            icon={busy ? <Spinner size="tiny" /> : undefined}
          >
            {flag ? 'Update' : 'Save'}
          </Button>
        </>
      }
    >
      <form
        id={formId}
        className={s.form}
        onSubmit={onSubmit}
        noValidate
        aria-label={flag ? 'Edit Feature Flag' : 'Add Feature Flag'}
      >
        <Text className={s.muted}>
          A flag named <span className={s.code}>{'{feature}'}.disable</span> with the value{' '}
          <span className={s.code}>true</span> turns that feature off for everyone, for example{' '}
          <span className={s.code}>health.disable</span>.
        </Text>
        <Field label="Name" required validationMessage={errors.name?.message}>
          <Controller
            control={form.control}
            name="name"
            render={({ field }) => (
              <Input
                readOnly={!!flag}
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
        <Field label="Value" required validationMessage={errors.value?.message}>
          <Controller
            control={form.control}
            name="value"
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
