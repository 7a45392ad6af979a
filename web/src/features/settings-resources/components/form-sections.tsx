import type { ReactNode } from 'react';
import { useFieldArray, useFormContext, type ArrayPath, type FieldValues } from 'react-hook-form';
import { Button, Caption1, makeStyles, Subtitle2, tokens } from '@fluentui/react-components';
import { Add20Regular, Delete20Regular } from '@fluentui/react-icons';
import { SelectField, TextField } from '../../../components/forms/form-fields';

/** The layout every settings Form tab shares: a column of sections, fields in rows of equal columns. */
export const useFormSectionStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL, maxWidth: '960px' },
  row: { display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(220px, 1fr))', gap: tokens.spacingHorizontalM },
  section: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, margin: 0, padding: 0, border: 'none' },
  legend: { padding: 0, marginBottom: tokens.spacingVerticalXS },
  label: { display: 'grid', gridTemplateColumns: '1fr 1fr auto', gap: tokens.spacingHorizontalM, alignItems: 'start' },
  remove: { marginTop: '26px' },
  add: { alignSelf: 'flex-start' },
  muted: { color: tokens.colorNeutralForeground3 },
});

/** A titled group of fields. */
export function FormSection({ title, children }: { title: string; children: ReactNode }) {
  const s = useFormSectionStyles();
  return (
    <fieldset className={s.section}>
      <legend className={s.legend}><Subtitle2>{title}</Subtitle2></legend>
      {children}
    </fieldset>
  );
}

/** The form's `labels`: key and value pairs, added and removed one at a time. */
export function LabelsSection<T extends FieldValues>({ readOnly }: { readOnly: boolean }) {
  const s = useFormSectionStyles();
  const { control } = useFormContext<{ labels: { key: string; value: string }[] }>();
  const labels = useFieldArray({ control, name: 'labels' as ArrayPath<{ labels: { key: string; value: string }[] }> });
  return (
    <FormSection title="Labels">
      {labels.fields.map((f, i) => (
        <div key={f.id} className={s.label}>
          <TextField<T> name={`labels.${i}.key` as never} label="Key" disabled={readOnly} />
          <TextField<T> name={`labels.${i}.value` as never} label="Value" disabled={readOnly} />
          {!readOnly && (
            <Button className={s.remove} appearance="subtle" icon={<Delete20Regular />} aria-label={`Remove label ${i + 1}`} onClick={() => labels.remove(i)} />
          )}
        </div>
      ))}
      {!labels.fields.length && <Caption1 className={s.muted}>No labels.</Caption1>}
      {!readOnly && (
        <Button className={s.add} size="small" icon={<Add20Regular />} onClick={() => labels.append({ key: '', value: '' })}>
          Add label
        </Button>
      )}
    </FormSection>
  );
}

/**
 * The Schedule select: `first` (a placeholder or an "unscheduled" choice), the current value when it is not one of
 * `schedules`, then `schedules`.
 */
export function ScheduleField<T extends FieldValues>(props: {
  schedules: readonly string[];
  first?: { value: string; label: string };
  placeholder?: string;
  required?: boolean;
  readOnly: boolean;
}) {
  const { getValues } = useFormContext<{ schedule: string }>();
  const current = getValues('schedule');
  const options = [
    ...(props.first ? [props.first] : []),
    ...(current && !props.schedules.includes(current) ? [{ value: current, label: current }] : []),
    ...props.schedules.map((v) => ({ value: v, label: v })),
  ];
  return (
    <SelectField<T>
      name={'schedule' as never}
      label="Schedule"
      required={props.required}
      options={options}
      placeholder={props.placeholder}
      disabled={props.readOnly}
    />
  );
}
