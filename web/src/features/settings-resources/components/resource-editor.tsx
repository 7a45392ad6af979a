import { useState } from 'react';
import { useLocation } from 'wouter';
import { useZodForm } from '../../../components/forms/form-dialog';
import { ApiError } from '../../../lib/api-client';
import { useDeleteResource, useResourceSchema, useSaveResource, type ResourceRow } from '../api';
import { specToYaml, yamlToSpec } from '../spec-yaml';
import { itemHref, listHref, type ResourceDescriptor, type TypeTile } from '../descriptors';
import { ResourceFormFields, ResourceFormModel } from './resource-form-fields';
import { SpecEditorFrame, type SpecTab } from './spec-editor-frame';
import { TypeTilesStep } from './type-tiles';


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
  const [, navigate] = useLocation();
  const editing = !!row;
  const startSpec = isObj(row?.spec) ? row.spec : {};
  const [tile, setTile] = useState<TypeTile | null>(null);
  const form = useZodForm(ResourceFormModel, initialForm(d, row, startSpec));
  const [tab, setTab] = useState<SpecTab>('form');
  const [yaml, setYaml] = useState(() => specToYaml(startSpec));
  const [problems, setProblems] = useState<string[]>([]);
  const schema = useResourceSchema(d);
  const save = useSaveResource(d, row?.id, currentUserId);
  const remove = useDeleteResource(d);
  const hasSpec = d.fields.includes('spec');

  // a new scraper or topology starts from a type (spec 001 §2); its template fills the spec
  if (!editing && d.tiles && !tile) {
    return (
      <TypeTilesStep
        heading={`Select ${d.singular} Type`}
        tiles={d.tiles}
        onPick={(t) => {
          setTile(t);
          setYaml(specToYaml(t.spec));
          if (str(t.spec.schedule)) form.setValue('schedule', str(t.spec.schedule));
        }}
        onBack={() => navigate(listHref(d))}
      />
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

  return (
    <SpecEditorFrame
      form={form}
      label={d.singular}
      what={d.singular.toLowerCase()}
      hasSpec={hasSpec}
      tab={tab}
      onTab={setTab}
      problems={problems}
      fields={<ResourceFormFields descriptor={d} editing={editing} readOnly={readOnly} />}
      code={{
        value: yaml,
        onChange: setYaml,
        schema: schema.data,
        schemaState: d.schema && !schema.data && !schema.error ? 'loading' : 'ready',
        schemaId: `inmemory://schema/${d.table}.schema.json`,
        label: `${d.singular} spec (YAML)`,
      }}
      readOnly={readOnly}
      editing={editing}
      busy={save.isPending}
      onSubmit={() => void form.handleSubmit(send, () => setTab('form'))()}
      onBack={() => (!editing && tile ? setTile(null) : navigate(listHref(d)))}
      remove={
        row && {
          title: `Delete ${d.singular}`,
          description: `Delete ${row.name ?? row.id}? It leaves ${d.title}.`,
          busy: remove.isPending,
          onConfirm: () => remove.mutate({ id: row.id, name: row.name ?? row.id }, { onSuccess: () => navigate(d.afterWrite ?? listHref(d), { replace: true }) }),
        }
      }
    />
  );
}
