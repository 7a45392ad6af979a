import { useFieldArray, useFormContext } from 'react-hook-form';
import { Button, Caption1, makeStyles, mergeClasses, tokens } from '@fluentui/react-components';
import { Add20Regular, Delete20Regular } from '@fluentui/react-icons';
import { NumberField, TextField } from '../../../components/forms/form-fields';
import { FormSection, LabelsSection, ScheduleField, useFormSectionStyles } from '../components/form-sections';
import { SCHEDULES, type CanaryFormModel } from './spec-model';

const useStyles = makeStyles({
  item: {
    display: 'grid',
    alignItems: 'start',
    gap: tokens.spacingHorizontalM,
    padding: tokens.spacingVerticalM,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusMedium,
    backgroundColor: tokens.colorNeutralBackground2,
  },
  http: { gridTemplateColumns: 'minmax(140px, 1fr) minmax(220px, 2fr) 130px 150px auto' },
  tcp: { gridTemplateColumns: 'minmax(140px, 1fr) minmax(220px, 2fr) 130px auto' },
});

export interface CanaryFormFieldsProps {
  editing: boolean;
  readOnly: boolean;
  /** Check types in the spec that only the Code tab edits. */
  otherTypes: string[];
}

/** The Form tab: name, namespace, labels, schedule, and the HTTP and TCP checks. */
export function CanaryFormFields({ editing, readOnly, otherTypes }: CanaryFormFieldsProps) {
  const s = { ...useFormSectionStyles(), ...useStyles() };
  const { control } = useFormContext<CanaryFormModel>();
  const http = useFieldArray({ control, name: 'http' });
  const tcp = useFieldArray({ control, name: 'tcp' });
  return (
    <div className={s.root}>
      <div className={s.row}>
        <TextField<CanaryFormModel> name="name" label="Name" required disabled={editing || readOnly} hint={editing ? undefined : 'Lower-case letters, digits, "-" and "."'} />
        <TextField<CanaryFormModel> name="namespace" label="Namespace" required disabled={editing || readOnly} />
        <ScheduleField<CanaryFormModel> schedules={SCHEDULES} first={{ value: '', label: 'No schedule (runs only on demand)' }} readOnly={readOnly} />
      </div>

      <LabelsSection<CanaryFormModel> readOnly={readOnly} />

      <FormSection title="HTTP checks">
        {http.fields.map((f, i) => (
          <div key={f.id} className={mergeClasses(s.item, s.http)} role="group" aria-label={`HTTP check ${i + 1}`}>
            <TextField<CanaryFormModel> name={`http.${i}.name`} label="Name" required disabled={readOnly} />
            <TextField<CanaryFormModel> name={`http.${i}.url`} label="URL" required disabled={readOnly} placeholder="https://example.com/healthz" />
            <NumberField<CanaryFormModel> name={`http.${i}.thresholdMillis`} label="Threshold" unit="ms" disabled={readOnly} />
            <TextField<CanaryFormModel> name={`http.${i}.responseCodes`} label="Response codes" disabled={readOnly} placeholder="200, 201" />
            {!readOnly && (
              <Button className={s.remove} appearance="subtle" icon={<Delete20Regular />} aria-label={`Remove HTTP check ${i + 1}`} onClick={() => http.remove(i)} />
            )}
          </div>
        ))}
        {!readOnly && (
          <Button className={s.add} size="small" icon={<Add20Regular />} onClick={() => http.append({ name: '', url: '', thresholdMillis: '', responseCodes: '' })}>
            Add HTTP check
          </Button>
        )}
      </FormSection>

      <FormSection title="TCP checks">
        {tcp.fields.map((f, i) => (
          <div key={f.id} className={mergeClasses(s.item, s.tcp)} role="group" aria-label={`TCP check ${i + 1}`}>
            <TextField<CanaryFormModel> name={`tcp.${i}.name`} label="Name" required disabled={readOnly} />
            <TextField<CanaryFormModel> name={`tcp.${i}.endpoint`} label="Endpoint" required disabled={readOnly} placeholder="host:port" />
            <NumberField<CanaryFormModel> name={`tcp.${i}.thresholdMillis`} label="Threshold" unit="ms" disabled={readOnly} />
            {!readOnly && (
              <Button className={s.remove} appearance="subtle" icon={<Delete20Regular />} aria-label={`Remove TCP check ${i + 1}`} onClick={() => tcp.remove(i)} />
            )}
          </div>
        ))}
        {!readOnly && (
          <Button className={s.add} size="small" icon={<Add20Regular />} onClick={() => tcp.append({ name: '', endpoint: '', thresholdMillis: '' })}>
            Add TCP check
          </Button>
        )}
      </FormSection>

      {otherTypes.length > 0 && (
        <Caption1 className={s.muted}>
          This canary also has {otherTypes.join(', ')} checks: edit them in the Code tab.
        </Caption1>
      )}
    </div>
  );
}
