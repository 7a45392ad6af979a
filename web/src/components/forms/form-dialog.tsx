import { useId, type ReactNode } from 'react';
import { Button, makeStyles, Spinner, tokens } from '@fluentui/react-components';
import { zodResolver } from '@hookform/resolvers/zod';
import { FormProvider, useForm, type DefaultValues, type FieldPath, type FieldValues, type UseFormReturn } from 'react-hook-form';
import type { z } from 'zod';
import { AppDialog, type DialogSize } from '../app-dialog';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
});

/**
 * The one form setup: a zod schema validates, messages appear once a field is touched (then on every change),
 * and the submit handler receives the schema's parsed output (numbers, nanoseconds), not the raw text.
 */
export function useZodForm<S extends z.ZodType<FieldValues, FieldValues>>(
  schema: S,
  defaultValues: DefaultValues<z.input<S>>,
): UseFormReturn<z.input<S>, unknown, z.output<S>> {
  return useForm<z.input<S>, unknown, z.output<S>>({
    resolver: zodResolver(schema),
    mode: 'onTouched',
    defaultValues,
  });
}

export interface FormDialogProps<TIn extends FieldValues, TOut extends FieldValues> {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  size?: DialogSize;
  helpUrl?: string;
  form: UseFormReturn<TIn, unknown, TOut>;
  onSubmit: (values: TOut) => void;
  /** Spec 001 §4: "Update" when editing, "Save" otherwise. */
  submitLabel?: string;
  /** The save is running: the button spins and reads "Saving…" (or `busyLabel`). */
  busy?: boolean;
  busyLabel?: string;
  /** Extra buttons on the left of Cancel (Delete, Back). */
  secondaryActions?: ReactNode;
  /** The field that gets focus when the dialog opens (by its name), instead of the title bar's first button. */
  initialFocus?: FieldPath<TIn>;
  children: ReactNode;
}

/** A dialog holding a form: the fields come from forms/form-fields and bind themselves through the context. */
export function FormDialog<TIn extends FieldValues, TOut extends FieldValues>({
  open,
  onOpenChange,
  title,
  size = 'small',
  helpUrl,
  form,
  onSubmit,
  submitLabel = 'Save',
  busy,
  busyLabel = 'Saving…',
  secondaryActions,
  initialFocus,
  children,
}: FormDialogProps<TIn, TOut>) {
  const s = useStyles();
  const formId = useId();
  return (
    <AppDialog
      open={open}
      onOpenChange={onOpenChange}
      title={title}
      size={size}
      helpUrl={helpUrl}
      initialFocus={initialFocus ? `[name="${initialFocus.replace(/["\\]/g, '\\$&')}"]` : undefined}
      actions={
        <>
          {secondaryActions}
          <Button appearance="secondary" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button
            appearance="primary"
            type="submit"
            form={formId}
            disabledFocusable={busy}
            icon={busy ? <Spinner size="tiny" /> : undefined}
          >
            {busy ? busyLabel : submitLabel}
          </Button>
        </>
      }
    >
      <FormProvider {...form}>
        <form id={formId} className={s.form} noValidate aria-label={title} onSubmit={form.handleSubmit(onSubmit)}>
          {children}
        </form>
      </FormProvider>
    </AppDialog>
  );
}
