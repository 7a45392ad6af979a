import { useFieldArray, useFormContext, useWatch } from 'react-hook-form';
import { Button, Caption1, makeStyles, Subtitle2, tokens } from '@fluentui/react-components';
import { Add20Regular, Delete20Regular } from '@fluentui/react-icons';
import { SelectField, TextField } from '../../../components/forms/form-fields';
import { HTTP_METHODS, SCHEDULES, SQL_DRIVERS, type ScraperFormModel } from '../spec-model';

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

type F = ScraperFormModel;

export interface ScraperFormFieldsProps {
  editing: boolean;
  readOnly: boolean;
  /** Scraper types in the spec the Form does not edit (shown as a note: they are the Code tab's). */
  otherTypes: string[];
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  const s = useStyles();
  return (
    <fieldset className={s.section}>
      <legend className={s.legend}><Subtitle2>{title}</Subtitle2></legend>
      {children}
    </fieldset>
  );
}

/**
 * The Form tab: name, namespace (fixed once saved), schedule (required), labels, and per type in the spec its main
 * fields (the first entry; items, transforms and further entries are the Code tab's).
 */
export function ScraperFormFields({ editing, readOnly, otherTypes }: ScraperFormFieldsProps) {
  const s = useStyles();
  const { control, getValues } = useFormContext<F>();
  const labels = useFieldArray({ control, name: 'labels' });
  const [kubernetes, file, http, sql] = useWatch({ control, name: ['kubernetes', 'file', 'http', 'sql'] });
  const current = getValues('schedule');
  const schedules = [
    ...(current && !(SCHEDULES as readonly string[]).includes(current) ? [{ value: current, label: current }] : []),
    ...SCHEDULES.map((v) => ({ value: v, label: v })),
  ];
  const lines = 'One per line.';
  return (
    <div className={s.root}>
      <div className={s.row}>
        <TextField<F> name="name" label="Name" required disabled={editing || readOnly} />
        <TextField<F> name="namespace" label="Namespace" disabled={editing || readOnly} hint={editing ? undefined : 'default when empty'} />
        <SelectField<F> name="schedule" label="Schedule" required options={schedules} placeholder="Select a schedule" disabled={readOnly} />
      </div>
      {kubernetes && (
        <Section title="Kubernetes">
          <div className={s.row}>
            <TextField<F> name="kubernetes.clusterName" label="Cluster name" disabled={readOnly} hint="Tags every item with cluster=<name>." />
          </div>
          <div className={s.row}>
            <TextField<F> name="kubernetes.excludeKinds" label="Exclude kinds" multiline disabled={readOnly} hint={`${lines} Globs; !Kind keeps one.`} />
            <TextField<F> name="kubernetes.excludeNamespaces" label="Exclude namespaces" multiline disabled={readOnly} hint={lines} />
            <TextField<F> name="kubernetes.excludeNames" label="Exclude names" multiline disabled={readOnly} hint={lines} />
          </div>
        </Section>
      )}
      {file && (
        <Section title="File">
          <div className={s.row}>
            <TextField<F> name="file.paths" label="Paths" required multiline disabled={readOnly} hint={`${lines} Globs of JSON or YAML files on the server.`} />
            <TextField<F> name="file.ignore" label="Ignore" multiline disabled={readOnly} hint={lines} />
          </div>
        </Section>
      )}
      {http && (
        <Section title="HTTP">
          <div className={s.row}>
            <TextField<F> name="http.url" label="URL" type="url" disabled={readOnly} />
            <TextField<F> name="http.connection" label="Connection" disabled={readOnly} hint="connection://<namespace>/<name> (instead of a URL)" />
            <SelectField<F> name="http.method" label="Method" options={HTTP_METHODS.map((m) => ({ value: m, label: m }))} disabled={readOnly} />
          </div>
        </Section>
      )}
      {sql && (
        <Section title="SQL">
          <div className={s.row}>
            <TextField<F> name="sql.connection" label="Connection" required disabled={readOnly} hint="A postgres:// or mysql:// URL, or connection://<namespace>/<name>" />
            <SelectField<F> name="sql.driver" label="Driver" options={SQL_DRIVERS.map((d) => ({ value: d, label: d }))} disabled={readOnly} />
          </div>
          <TextField<F> name="sql.query" label="Query" required multiline disabled={readOnly} hint="One item per row." />
        </Section>
      )}
      <Section title="Labels">
        {labels.fields.map((f, i) => (
          <div key={f.id} className={s.label}>
            <TextField<F> name={`labels.${i}.key`} label="Key" disabled={readOnly} />
            <TextField<F> name={`labels.${i}.value`} label="Value" disabled={readOnly} />
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
      </Section>
      <Caption1 className={s.muted}>
        {otherTypes.length ? `Also in this spec: ${otherTypes.join(', ')}. ` : ''}
        Items, transforms, further entries and other fields are edited in the Code tab.
      </Caption1>
    </div>
  );
}
