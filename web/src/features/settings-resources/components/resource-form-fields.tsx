import { z } from 'zod';
import { Caption1 } from '@fluentui/react-components';
import { TextField } from '../../../components/forms/form-fields';
import { SCHEDULES } from '../canary/spec-model';
import type { ResourceDescriptor } from '../descriptors';
import { LabelsSection, ScheduleField, useFormSectionStyles } from './form-sections';

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
  const s = useFormSectionStyles();
  const has = (f: string) => (d.fields as readonly string[]).includes(f);
  return (
    <div className={s.root}>
      <div className={s.row}>
        <TextField<ResourceFormModel> name="name" label="Name" required disabled={editing || readOnly} />
        {has('namespace') && <TextField<ResourceFormModel> name="namespace" label="Namespace" disabled={editing || readOnly} />}
        {has('schedule') && <ScheduleField<ResourceFormModel> schedules={SCHEDULES} first={{ value: '', label: 'From the spec' }} readOnly={readOnly} />}
        {has('icon') && <TextField<ResourceFormModel> name="icon" label="Icon" disabled={readOnly} hint="An icon name such as kubernetes (optional)." />}
      </div>
      {has('labels') && <LabelsSection<ResourceFormModel> readOnly={readOnly} />}
      {has('spec') && <Caption1 className={s.muted}>The spec is edited in the Code tab.</Caption1>}
    </div>
  );
}
