import { useId } from 'react';
import {
  Button,
  Field,
  makeStyles,
  MessageBar,
  MessageBarBody,
  Radio,
  RadioGroup,
  Spinner,
  Textarea,
  tokens,
} from '@fluentui/react-components';
import { Delete20Regular } from '@fluentui/react-icons';
import { Controller, FormProvider, useWatch, type FieldPath } from 'react-hook-form';
import { DURATION_OPTIONS } from '@contracts/notifications';
import { AppDialog } from '../../../components/app-dialog';
import { useZodForm } from '../../../components/forms/form-dialog';
import { MultiSelectField, SelectField, SwitchField, TextField } from '../../../components/forms/form-fields';
import { ApiError, errorMessage } from '../../../lib/api-client';
import { useSaveRule } from './api';
import {
  EVENT_OPTIONS,
  QUIET_DAYS,
  isEditableSource,
  REPEAT_OPTIONS,
  ruleFormSchema,
  ruleFormValues,
  ruleWriteBody,
  serverFieldErrors,
  type RuleForm,
  type RuleRow,
} from './model';
import { RecipientFields } from './recipient-fields';
import { TestSendPanel } from './test-send-panel';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  pair: { display: 'grid', gridTemplateColumns: '1fr 1fr', gap: tokens.spacingHorizontalM },
  code: { fontFamily: tokens.fontFamilyMonospace, minHeight: '160px' },
  spacer: { flex: 1 },
  fieldset: { border: 'none', margin: 0, padding: 0, minWidth: 0, display: 'contents' },
});

const WAIT_OPTIONS = DURATION_OPTIONS.map((d) => ({ value: d, label: d }));
const DAY_OPTIONS = QUIET_DAYS.map((d) => ({ value: d, label: d[0].toUpperCase() + d.slice(1) }));

export interface RuleFormDialogProps {
  /** Editing this rule; absent: Create Notification. */
  rule?: RuleRow | null;
  canWrite: boolean;
  currentUserId: string;
  onClose: () => void;
  onDelete?: (rule: RuleRow) => void;
}

/** Create / Edit Notification: Save or Update only for UI rules (or new ones) and writers; CR rows read-only. */
export function RuleFormDialog({ rule, canWrite, currentUserId, onClose, onDelete }: RuleFormDialogProps) {
  const s = useStyles();
  const formId = useId();
  const form = useZodForm(ruleFormSchema, ruleFormValues(rule));
  const save = useSaveRule();
  const editable = canWrite && isEditableSource(rule?.source);
  const templateMode = useWatch({ control: form.control, name: 'templateMode' });
  const waitFor = useWatch({ control: form.control, name: 'wait_for' });
  const events = useWatch({ control: form.control, name: 'events' });
  const quiet = useWatch({ control: form.control, name: 'quiet' });
  const rootError = form.formState.errors.root?.message;

  const onSubmit = form.handleSubmit((values) => {
    form.clearErrors('root');
    save.mutate(
      { id: rule?.id, body: ruleWriteBody(values), createdBy: currentUserId },
      {
        onSuccess: onClose,
        onError: (err) => {
          const fields = err instanceof ApiError && err.status === 400 ? serverFieldErrors(err.message, err.details) : [];
          fields.forEach(({ field, message }, i) => {
            const name = field as FieldPath<RuleForm>;
            // touched, so the field shows the message as it shows its own
            form.setValue(name, form.getValues(name), { shouldTouch: true });
            form.setError(name, { message }, { shouldFocus: i === 0 });
          });
          if (!fields.length) form.setError('root', { message: errorMessage(err) });
        },
      },
    );
  });

  const title = rule ? 'Edit Notification' : 'Create Notification';
  return (
    <AppDialog
      open
      onOpenChange={(o) => !o && onClose()}
      title={title}
      size="large"
      initialFocus={rule ? undefined : '[name="name"]'}
      actions={
        <>
          {rule && editable && onDelete && (
            <Button icon={<Delete20Regular />} onClick={() => onDelete(rule)}>
              Delete
            </Button>
          )}
          <span className={s.spacer} />
          <Button appearance="secondary" onClick={onClose}>
            {editable ? 'Cancel' : 'Close'}
          </Button>
          {editable && (
            <Button
              appearance="primary"
              type="submit"
              form={formId}
              disabledFocusable={save.isPending}
              icon={save.isPending ? <Spinner size="tiny" /> : undefined}
            >
              {save.isPending ? 'Saving…' : rule ? 'Update' : 'Save'}
            </Button>
          )}
        </>
      }
    >
      <FormProvider {...form}>
        <form id={formId} className={s.form} noValidate aria-label={title} onSubmit={(e) => void onSubmit(e)}>
          {rule && !isEditableSource(rule.source) && (
            // focusable: with every field disabled the scrolling dialog body still takes the keyboard (axe
            // scrollable-region-focusable)
            <MessageBar intent="info" tabIndex={0}>
              <MessageBarBody>{`Linked to ${rule.source}: this rule is managed outside the console and is read-only here.`}</MessageBarBody>
            </MessageBar>
          )}
          {rule && canWrite === false && isEditableSource(rule.source) && (
            <MessageBar intent="info" tabIndex={0}>
              <MessageBarBody>You can view this rule; changing it needs write access to notifications.</MessageBarBody>
            </MessageBar>
          )}
          {rootError && (
            <MessageBar intent="error">
              <MessageBarBody>{rootError}</MessageBarBody>
            </MessageBar>
          )}
          <fieldset disabled={!editable} className={s.fieldset}>
            <TextField<RuleForm> name="name" label="Name" required disabled={!editable} />
            <MultiSelectField<RuleForm> name="events" label="Events" required disabled={!editable} options={EVENT_OPTIONS} placeholder="Select events" />
            <TextField<RuleForm>
              name="filter"
              label="Filter"
              hint="A CEL expression over the event's variables, e.g. check.type == 'http'"
              disabled={!editable}
            />
            <RecipientFields disabled={!editable} />
            <div className={s.pair}>
              <SelectField<RuleForm> name="repeat_interval" label="Repeat Interval" disabled={!editable} options={REPEAT_OPTIONS} placeholder="None" />
              <SelectField<RuleForm>
                name="wait_for"
                label="Wait For"
                disabled={!editable}
                placeholder="None"
                options={waitFor && !WAIT_OPTIONS.some((o) => o.value === waitFor) ? [{ value: waitFor, label: waitFor }, ...WAIT_OPTIONS] : WAIT_OPTIONS}
              />
            </div>
            <TextField<RuleForm> name="title" label="Title" disabled={!editable} />
            <Controller
              control={form.control}
              name="templateMode"
              render={({ field }) => (
                <Field label="Template">
                  <RadioGroup
                    layout="horizontal"
                    value={field.value}
                    disabled={!editable}
                    onChange={(_, d) => {
                      field.onChange(d.value);
                      if (d.value === 'default') form.setValue('template', '');
                    }}
                  >
                    <Radio value="default" label="Default" />
                    <Radio value="custom" label="Custom Template" />
                  </RadioGroup>
                </Field>
              )}
            />
            {templateMode === 'custom' && (
              <Controller
                control={form.control}
                name="template"
                render={({ field, fieldState, formState }) => (
                  <Field
                    label="Custom Template"
                    hint="Markdown with Go-template actions: {{ .check.name }}, {{ if … }}, {{ range … }}"
                    validationMessage={fieldState.error && (fieldState.isTouched || formState.isSubmitted) ? fieldState.error.message : undefined}
                  >
                    <Textarea
                      ref={field.ref}
                      name={field.name}
                      value={field.value}
                      onChange={(_, d) => field.onChange(d.value)}
                      onBlur={field.onBlur}
                      disabled={!editable}
                      resize="vertical"
                      textarea={{ className: s.code, spellCheck: false }}
                    />
                  </Field>
                )}
              />
            )}
            <TextField<RuleForm> name="properties" label="Properties" hint="key=value, one per line" multiline disabled={!editable} />
            <SwitchField<RuleForm>
              name="quiet"
              label="Quiet hours"
              hint="Sends inside them are held and leave as one digest when they end"
              disabled={!editable}
            />
            {quiet && (
              <>
                <div className={s.pair}>
                  <TextField<RuleForm> name="quiet_start" label="Quiet from" hint="HH:MM" required disabled={!editable} />
                  <TextField<RuleForm> name="quiet_end" label="Quiet until" hint="HH:MM; before the start spans midnight" required disabled={!editable} />
                </div>
                <div className={s.pair}>
                  <TextField<RuleForm> name="quiet_timezone" label="Timezone" hint="IANA name, e.g. Europe/Berlin" required disabled={!editable} />
                  <MultiSelectField<RuleForm> name="quiet_days" label="Days" placeholder="Every day" options={DAY_OPTIONS} disabled={!editable} />
                </div>
                <TextField<RuleForm>
                  name="quiet_except"
                  label="Except when"
                  hint="A CEL expression; true lets the send through, e.g. check.labels.severity == 'critical'"
                  disabled={!editable}
                />
              </>
            )}
          </fieldset>
          {editable && <TestSendPanel ruleId={rule?.id} events={events ?? []} body={() => ruleWriteBody(form.getValues())} />}
        </form>
      </FormProvider>
    </AppDialog>
  );
}
