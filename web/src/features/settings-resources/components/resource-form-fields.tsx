import { useFieldArray, useFormContext } from 'react-hook-form';
import { z } from 'zod';
import { Button, Caption1, makeStyles, Subtitle2, tokens } from '@fluentui/react-components';
import { Add20Regular, Delete20Regular } from '@fluentui/react-icons';
import { SelectField, TextField } from '../../../components/forms/form-fields';
import { SCHEDULES } from '../canary/spec-model';
import type { ResourceDescriptor } from '../descriptors';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL, maxWidth: '960px' },
  row: { display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(220px, 1fr))', gap: tokens.spacingHorizontalM },
  section: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, margin: 0, padding: 0, border: 'none' },
  legend: { padding: 0, marginBottom: tokens.spacingVerticalXS },
  label: { display: 'grid', gridTemplateColumns: '1fr 1fr auto', gap: tokens.spacingHorizontalM, alignItems: 'start' },
  remove: { marginTop: '26px' },
  add: { alignSelf: 'flex-start' },
  muted: { color: tokens.colorNeutralForeground3 },
});

/** The Form tab's values: spec 001 §5 "Resource form" (name required); every field a descriptor may leave out. */
export const ResourceFormModel = z.object({
  name: z.string().trim().min(1, 'This field is required').max(253, 'Too long'),
  namespace: z.string().trim().max(253, 'Too long'),
  labels: z.array(z.object({ key: z.string().trim(), value: z.string().trim() })),
  schedule: z.string(),
  icon: z.string().trim().max(100, 'Too long'),
});
export type ResourceFormModel = z.infer<typeof ResourceFormModel>;

export interface ResourceFormFieldsProps {
  descriptor: ResourceDescriptor;
  editing: boolean;
  readOnly: boolean;
}

/** The Form tab: the row's own columns (the spec is the Code tab's); name and namespace are fixed once saved. */
export function ResourceFormFields({ descriptor: d, editing, readOnly }: ResourceFormFieldsProps) {
  const s = useStyles();
  const { control, getValues } = useFormContext<ResourceFormModel>();
  const labels = useFieldArray({ control, name: 'labels' });
  const has = (f: string) => (d.fields as readonly string[]).includes(f);
  const current = getValues('schedule');
  const options = [
    { value: '', label: 'From the spec' },
    ...(current && !(SCHEDULES as readonly string[]).includes(current) ? [{ value: current, label: current }] : []),
    ...SCHEDULES.map((v) => ({ value: v, label: v })),
  ];
  return (
    <div className={s.root}>
      <div className={s.row}>
        <TextField<ResourceFormModel> name="name" label="Name" required disabled={editing || readOnly} />
        {has('namespace') && <TextField<ResourceFormModel> name="namespace" label="Namespace" disabled={editing || readOnly} />}
        {has('schedule') && <SelectField<ResourceFormModel> name="schedule" label="Schedule" options={options} disabled={readOnly} />}
        {has('icon') && <TextField<ResourceFormModel> name="icon" label="Icon" disabled={readOnly} hint="An icon name such as kubernetes (optional)." />}
      </div>
      {has('labels') && (
        <fieldset className={s.section}>
          <legend className={s.legend}><Subtitle2>Labels</Subtitle2></legend>
          {labels.fields.map((f, i) => (
            <div key={f.id} className={s.label}>
              <TextField<ResourceFormModel> name={`labels.${i}.key`} label="Key" disabled={readOnly} />
              <TextField<ResourceFormModel> name={`labels.${i}.value`} label="Value" disabled={readOnly} />
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
        </fieldset>
      )}
      {has('spec') && <Caption1 className={s.muted}>The spec is edited in the Code tab.</Caption1>}
    </div>
  );
}
