import { useState } from 'react';
import { useLocation } from 'wouter';
import { FormProvider } from 'react-hook-form';
import { Button, makeStyles, MessageBar, MessageBarBody, MessageBarTitle, Spinner, Tab, TabList, tokens } from '@fluentui/react-components';
import { Delete20Regular } from '@fluentui/react-icons';
import { YamlEditor, type YamlProblem } from '../../../components/code/yaml-editor';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { useZodForm } from '../../../components/forms/form-dialog';
import { ApiError } from '../../../lib/api-client';
import { useDeleteResource, useResourceSchema, useSaveResource, type ResourceRow } from '../api';
import { specToYaml, yamlToSpec } from '../canary/spec-model';
import { itemHref, listHref, type ResourceDescriptor, type TypeTile } from '../descriptors';
import { ResourceFormFields, ResourceFormModel } from './resource-form-fields';
import { TypeTiles } from './type-tiles';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  problems: { margin: 0, paddingInlineStart: tokens.spacingHorizontalXL },
  actions: {
    display: 'flex',
    gap: tokens.spacingHorizontalS,
    paddingTop: tokens.spacingVerticalM,
    borderTop: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
  },
  spacer: { flex: 1 },
});

type Spec = Record<string, unknown>;
const isObj = (v: unknown): v is Spec => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : '');

export interface ResourceEditorProps {
  descriptor: ResourceDescriptor;
  /** Absent for a new one. */
  row?: ResourceRow;
  /** Write permission and a source the console edits. */
  readOnly: boolean;
  currentUserId: string;
}

function initialForm(d: ResourceDescriptor, row: ResourceRow | undefined, spec: Spec): ResourceFormModel {
  return {
    name: row?.name ?? '',
    namespace: row?.namespace ?? d.defaultNamespace ?? '',
    labels: Object.entries(row?.labels ?? {}).map(([key, value]) => ({ key, value: String(value) })),
    schedule: row?.schedule ?? str(spec.schedule),
    icon: row?.icon ?? '',
  };
}

/**
 * The spec editor of a settings resource (spec 001 §2 "Spec editors per kind"): type tiles for a new scraper or
 * topology, then Form (the row's columns) and Code (the spec as YAML, checked against the kind's schema);
 * Save/Update, Back, Delete. Writes go through /api/db as the reference UI sends them.
 */
export function ResourceEditor({ descriptor: d, row, readOnly, currentUserId }: ResourceEditorProps) {
  const s = useStyles();
  const [, navigate] = useLocation();
  const editing = !!row;
  const startSpec = isObj(row?.spec) ? row.spec : {};
  const [tile, setTile] = useState<TypeTile | null>(null);
  const form = useZodForm(ResourceFormModel, initialForm(d, row, startSpec));
  const [tab, setTab] = useState<'form' | 'code'>('form');
  const [yaml, setYaml] = useState(() => specToYaml(startSpec));
  const [markers, setMarkers] = useState<YamlProblem[]>([]);
  const [problems, setProblems] = useState<string[]>([]);
  const [deleting, setDeleting] = useState(false);
  const schema = useResourceSchema(d);
  const save = useSaveResource(d, row?.id, currentUserId);
  const remove = useDeleteResource(d);
  const hasSpec = d.fields.includes('spec');

  // a new scraper or topology starts from a type (spec 001 §2); its template fills the spec
  if (!editing && d.tiles && !tile) {
    return (
      <div className={s.root}>
        <TypeTiles
          heading={`Select ${d.singular} Type`}
          tiles={d.tiles}
          onPick={(t) => {
            setTile(t);
            setYaml(specToYaml(t.spec));
            if (str(t.spec.schedule)) form.setValue('schedule', str(t.spec.schedule));
          }}
        />
        <div className={s.actions}>
          <Button onClick={() => navigate(listHref(d))}>Back</Button>
        </div>
      </div>
    );
  }

  const done = (id: string) => {
    // spec 001 §4: after a topology or scraper is saved or deleted, Integrations lists it
    if (d.afterWrite) navigate(d.afterWrite);
    else if (!editing) navigate(itemHref(d, id), { replace: true });
  };

  const send = (values: ResourceFormModel) => {
    setProblems([]);
    const parsed = hasSpec ? yamlToSpec(yaml) : { spec: {} };
    if ('error' in parsed) {
      setTab('code');
      return setProblems([parsed.error]);
    }
    const spec = parsed.spec;
    // the schedule column and the spec's schedule say the same (the server derives one from the other)
    if (values.schedule && d.fields.includes('schedule')) spec.schedule = values.schedule;
    const labels = Object.fromEntries(values.labels.filter((l) => l.key).map((l) => [l.key, l.value]));
    save.mutate(
      {
        name: values.name,
        ...(!editing && d.fields.includes('namespace') && { namespace: values.namespace || d.defaultNamespace || 'default' }),
        labels,
        spec,
        schedule: values.schedule || undefined,
        icon: values.icon || null,
      },
      {
        onSuccess: done,
        onError: (err) => {
          if (!(err instanceof ApiError) || !err.details || typeof err.details !== 'object') return setProblems([err.message]);
          // a 4xx names its fields or spec paths: name and namespace sit by their fields, the rest above the form
          const listed: string[] = [];
          for (const [path, msg] of Object.entries(err.details as Record<string, unknown>)) {
            if (path === 'name' || path === 'namespace') form.setError(path, { type: 'server', message: String(msg) });
            else listed.push(`${path}: ${String(msg)}`);
          }
          setProblems(listed.length ? listed : [err.message]);
        },
      },
    );
  };

  const busy = save.isPending;
  const markerErrors = markers.filter((m) => m.severity === 'error');
  const blocked = tab === 'code' && markerErrors.length > 0;
  return (
    <div className={s.root}>
      {hasSpec && (
        <TabList selectedValue={tab} onTabSelect={(_, v) => setTab(v.value as 'form' | 'code')} aria-label="Spec editor" size="small">
          <Tab value="form">Form</Tab>
          <Tab value="code">Code</Tab>
        </TabList>
      )}
      {problems.length > 0 && (
        <MessageBar intent="error" layout="multiline">
          <MessageBarBody>
            <MessageBarTitle>The {d.singular.toLowerCase()} was not saved</MessageBarTitle>
            <ul className={s.problems} aria-label="Problems">
              {problems.map((p) => <li key={p}>{p}</li>)}
            </ul>
          </MessageBarBody>
        </MessageBar>
      )}
      <FormProvider {...form}>
        <form
          noValidate
          aria-label={d.singular}
          onSubmit={(e) => {
            e.preventDefault();
            void form.handleSubmit(send, () => setTab('form'))();
          }}
        >
          {tab === 'form' ? (
            <ResourceFormFields descriptor={d} editing={editing} readOnly={readOnly} />
          ) : d.schema && !schema.data && !schema.error ? (
            <Spinner size="small" label="Loading the spec schema…" />
          ) : (
            <YamlEditor
              value={yaml}
              onChange={setYaml}
              schema={schema.data}
              schemaId={`inmemory://schema/${d.table}.schema.json`}
              onValidate={setMarkers}
              readOnly={readOnly}
              height="480px"
              label={`${d.singular} spec (YAML)`}
            />
          )}
          {tab === 'code' && markerErrors.length > 0 && (
            <MessageBar intent="warning" role="status">
              <MessageBarBody>
                {markerErrors.length === 1 ? '1 problem' : `${markerErrors.length} problems`} in the spec (line {markerErrors[0].line}: {markerErrors[0].message}); fix {markerErrors.length === 1 ? 'it' : 'them'} to save.
              </MessageBarBody>
            </MessageBar>
          )}
          <div className={s.actions}>
            {!readOnly && (
              <Button type="submit" appearance="primary" disabled={busy || blocked} icon={busy ? <Spinner size="tiny" /> : undefined}>
                {busy ? (editing ? 'Updating…' : 'Saving…') : editing ? 'Update' : 'Save'}
              </Button>
            )}
            <Button onClick={() => (!editing && tile ? setTile(null) : navigate(listHref(d)))}>Back</Button>
            <span className={s.spacer} />
            {editing && !readOnly && (
              <Button appearance="subtle" icon={<Delete20Regular />} onClick={() => setDeleting(true)}>
                Delete
              </Button>
            )}
          </div>
        </form>
      </FormProvider>
      {deleting && row && (
        <ConfirmDialog
          open
          title={`Delete ${d.singular}`}
          description={`Delete ${row.name ?? row.id}? It leaves ${d.title}.`}
          confirmLabel="Delete"
          danger
          busy={remove.isPending}
          onConfirm={() =>
            remove.mutate({ id: row.id, name: row.name ?? row.id }, { onSuccess: () => navigate(d.afterWrite ?? listHref(d), { replace: true }) })
          }
          onCancel={() => setDeleting(false)}
        />
      )}
    </div>
  );
}
