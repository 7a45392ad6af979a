import { useFieldArray, useFormContext } from 'react-hook-form';
import { Button, Caption1, makeStyles, Subtitle2, tokens } from '@fluentui/react-components';
import { Add20Regular, Delete20Regular } from '@fluentui/react-icons';
import { TextField } from '../../../components/forms/form-fields';

const useStyles = makeStyles({
  section: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, margin: 0, padding: 0, border: 'none' },
  legend: { padding: 0, marginBottom: tokens.spacingVerticalXS },
  row: { display: 'grid', gridTemplateColumns: '1fr 1fr auto', gap: tokens.spacingHorizontalM, alignItems: 'start' },
  remove: { marginTop: '26px' },
  add: { alignSelf: 'flex-start' },
  muted: { color: tokens.colorNeutralForeground3 },
});

type WithProperties = { properties: { key: string; value: string }[] };

/**
 * The agent's Properties: key and value rows (labels the upstream adds to everything the agent pushes), added and
 * removed one at a time.
 */
export function PropertiesField({ disabled }: { disabled?: boolean }) {
  const s = useStyles();
  const { control } = useFormContext<WithProperties>();
  const rows = useFieldArray({ control, name: 'properties' });
  return (
    <fieldset className={s.section}>
      <legend className={s.legend}>
        <Subtitle2>Properties</Subtitle2>
      </legend>
      {rows.fields.map((f, i) => (
        <div key={f.id} className={s.row}>
          <TextField<WithProperties> name={`properties.${i}.key`} label={`Key ${i + 1}`} disabled={disabled} />
          <TextField<WithProperties> name={`properties.${i}.value`} label={`Value ${i + 1}`} disabled={disabled} />
          {!disabled && (
            <Button className={s.remove} appearance="subtle" icon={<Delete20Regular />} aria-label={`Remove property ${i + 1}`} onClick={() => rows.remove(i)} />
          )}
        </div>
      ))}
      {!rows.fields.length && <Caption1 className={s.muted}>No properties.</Caption1>}
      {!disabled && (
        <Button className={s.add} size="small" icon={<Add20Regular />} onClick={() => rows.append({ key: '', value: '' })}>
          Add property
        </Button>
      )}
    </fieldset>
  );
}
