import { useFieldArray, useFormContext } from 'react-hook-form';
import { Button, Caption1, makeStyles, Subtitle2, tokens } from '@fluentui/react-components';
import { Add20Regular, Delete20Regular } from '@fluentui/react-icons';
import { NumberField, SelectField, TextField } from '../../../components/forms/form-fields';
import { SCHEDULES, type CanaryFormModel } from './spec-model';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL, maxWidth: '960px' },
  row: { display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(220px, 1fr))', gap: tokens.spacingHorizontalM },
  section: {
    display: 'flex',
    flexDirection: 'column',
    gap: tokens.spacingVerticalS,
    margin: 0,
    padding: 0,
    border: 'none',
  },
  legend: { padding: 0, marginBottom: tokens.spacingVerticalXS },
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
  label: { display: 'grid', gridTemplateColumns: '1fr 1fr auto', gap: tokens.spacingHorizontalM, alignItems: 'start' },
  remove: { marginTop: '26px' },
  add: { alignSelf: 'flex-start' },
  muted: { color: tokens.colorNeutralForeground3 },
});

export interface CanaryFormFieldsProps {
  editing: boolean;
  readOnly: boolean;
  /** Check types in the spec that only the Code tab edits. */
  otherTypes: string[];
}

/** The Form tab: name, namespace, labels, schedule, and the HTTP and TCP checks. */
export function CanaryFormFields({ editing, readOnly, otherTypes }: CanaryFormFieldsProps) {
  const s = useStyles();
  const { control, getValues } = useFormContext<CanaryFormModel>();
  const labels = useFieldArray({ control, name: 'labels' });
  const http = useFieldArray({ control, name: 'http' });
  const tcp = useFieldArray({ control, name: 'tcp' });
  const current = getValues('schedule');
  const options = [
    { value: '', label: 'No schedule (runs only on demand)' },
    ...(current && !(SCHEDULES as readonly string[]).includes(current) ? [{ value: current, label: current }] : []),
    ...SCHEDULES.map((v) => ({ value: v, label: v })),
  ];
  return (
    <div className={s.root}>
      <div className={s.row}>
        <TextField<CanaryFormModel> name="name" label="Name" required disabled={editing || readOnly} hint={editing ? undefined : 'Lower-case letters, digits, "-" and "."'} />
        <TextField<CanaryFormModel> name="namespace" label="Namespace" required disabled={editing || readOnly} />
        <SelectField<CanaryFormModel> name="schedule" label="Schedule" options={options} disabled={readOnly} />
      </div>

      <fieldset className={s.section}>
        <legend className={s.legend}><Subtitle2>Labels</Subtitle2></legend>
        {labels.fields.map((f, i) => (
          <div key={f.id} className={s.label}>
            <TextField<CanaryFormModel> name={`labels.${i}.key`} label="Key" disabled={readOnly} />
            <TextField<CanaryFormModel> name={`labels.${i}.value`} label="Value" disabled={readOnly} />
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

      <fieldset className={s.section}>
        <legend className={s.legend}><Subtitle2>HTTP checks</Subtitle2></legend>
        {http.fields.map((f, i) => (
          <div key={f.id} className={`${s.item} ${s.http}`} role="group" aria-label={`HTTP check ${i + 1}`}>
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
      </fieldset>

      <fieldset className={s.section}>
        <legend className={s.legend}><Subtitle2>TCP checks</Subtitle2></legend>
        {tcp.fields.map((f, i) => (
          <div key={f.id} className={`${s.item} ${s.tcp}`} role="group" aria-label={`TCP check ${i + 1}`}>
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
      </fieldset>

      {otherTypes.length > 0 && (
        <Caption1 className={s.muted}>
          This canary also has {otherTypes.join(', ')} checks: edit them in the Code tab.
        </Caption1>
      )}
    </div>
  );
}
