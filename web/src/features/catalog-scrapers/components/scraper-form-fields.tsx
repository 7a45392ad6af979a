import { useFormContext, useWatch } from 'react-hook-form';
import { Caption1 } from '@fluentui/react-components';
import { SelectField, TextField } from '../../../components/forms/form-fields';
import { FormSection as Section, LabelsSection, ScheduleField, useFormSectionStyles } from '../../settings-resources/components/form-sections';
import { HTTP_METHODS, SCHEDULES, SQL_DRIVERS, type ScraperFormModel } from '../spec-model';

type F = ScraperFormModel;

export interface ScraperFormFieldsProps {
  editing: boolean;
  readOnly: boolean;
  /** Scraper types in the spec the Form does not edit (shown as a note: they are the Code tab's). */
  otherTypes: string[];
}

/**
 * The Form tab: name, namespace (fixed once saved), schedule (required), labels, and per type in the spec its main
 * fields (the first entry; items, transforms and further entries are the Code tab's).
 */
export function ScraperFormFields({ editing, readOnly, otherTypes }: ScraperFormFieldsProps) {
  const s = useFormSectionStyles();
  const { control } = useFormContext<F>();
  const [kubernetes, file, http, sql] = useWatch({ control, name: ['kubernetes', 'file', 'http', 'sql'] });
  const lines = 'One per line.';
  return (
    <div className={s.root}>
      <div className={s.row}>
        <TextField<F> name="name" label="Name" required disabled={editing || readOnly} />
        <TextField<F> name="namespace" label="Namespace" disabled={editing || readOnly} hint={editing ? undefined : 'default when empty'} />
        <ScheduleField<F> schedules={SCHEDULES} required placeholder="Select a schedule" readOnly={readOnly} />
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
      <LabelsSection<F> readOnly={readOnly} />
      <Caption1 className={s.muted}>
        {otherTypes.length ? `Also in this spec: ${otherTypes.join(', ')}. ` : ''}
        Items, transforms, further entries and other fields are edited in the Code tab.
      </Caption1>
    </div>
  );
}
