import { useState } from 'react';
import { useZodForm } from '../../../components/forms/form-dialog';
import { ApiError } from '../../../lib/api-client';
import { useDeleteResource, useResourceSchema, useSaveResource, type ResourceRow } from '../../settings-resources/api';
import { SpecEditorFrame } from '../../settings-resources/components/spec-editor-frame';
import { useSpecTabs, type FormSpecModel } from '../../settings-resources/components/use-spec-tabs';
import { SCRAPERS } from '../api';
import {
  FORM_TYPES,
  labelsOf,
  mergeFormIntoSpec,
  ScraperFormModel,
  splitServerDetails,
  SCRAPER_KINDS,
  templateOf,
  toFormModel,
  typeLabel,
  typesOf,
  yamlToSpec,
  type ScraperKind,
} from '../spec-model';
import { ScraperFormFields } from './scraper-form-fields';
import { TypeTilesStep } from '../../settings-resources/components/type-tiles';


type Spec = Record<string, unknown>;
const isObj = (v: unknown): v is Spec => !!v && typeof v === 'object' && !Array.isArray(v);

export interface ScraperEditorProps {
  /** Absent for a new one: it starts from the type tiles. */
  row?: ResourceRow;
  /** No write permission, or a source the console does not edit. */
  readOnly: boolean;
  currentUserId: string;
  onSaved: (id: string, created: boolean) => void;
  onDeleted: () => void;
  /** Back from the tiles (or from a saved scraper's spec). */
  onBack: () => void;
}

/** The Spec tab: type tiles for a new scraper, then the settings Form/Code frame over the scraper's spec model. */
export function ScraperEditor(props: ScraperEditorProps) {
  const [kind, setKind] = useState<ScraperKind | null>(null);
  // spec 001 §3's types; those this console does not run are shown disabled ("not supported"); Custom opens Code
  if (!props.row && !kind) return <TypeTilesStep heading="Select Scraper Type" tiles={SCRAPER_KINDS} onPick={setKind} onBack={props.onBack} />;
  return <SpecEditor {...props} kind={kind} onTiles={() => setKind(null)} />;
}

/** The Form edits the schedule and its types' first entries; the rest of the spec is the Code tab's. */
const SPEC_MODEL: FormSpecModel<ScraperFormModel> = {
  merge: mergeFormIntoSpec,
  fromSpec: (spec) => {
    const m = toFormModel({}, spec);
    return Object.fromEntries((['schedule', ...FORM_TYPES] as const).map((k) => [k, m[k]]));
  },
};

function SpecEditor({ row, readOnly, currentUserId, onSaved, onDeleted, onBack, kind, onTiles }: ScraperEditorProps & { kind: ScraperKind | null; onTiles: () => void }) {
  const editing = !!row;
  const start = row ? (isObj(row.spec) ? row.spec : {}) : templateOf(kind!);
  const form = useZodForm(ScraperFormModel, toFormModel({ name: row?.name, namespace: row?.namespace, labels: row?.labels }, start));
  const { base, tab, yaml, setYaml, problems, setProblems, switchTab } = useSpecTabs(form, start, SPEC_MODEL, kind?.key === 'custom' ? 'code' : 'form');
  const schema = useResourceSchema(SCRAPERS);
  const save = useSaveResource(SCRAPERS, row?.id, currentUserId);
  const remove = useDeleteResource(SCRAPERS);
  const otherTypes = typesOf(base.current).filter((t) => !(FORM_TYPES as readonly string[]).includes(t)).map(typeLabel);

  const send = (values: ScraperFormModel, spec: Spec) => {
    setProblems([]);
    // the namespace is fixed once saved: an update leaves it out
    const namespace = editing ? {} : { namespace: values.namespace.trim() || 'default' };
    save.mutate(
      { name: values.name.trim(), ...namespace, labels: labelsOf(values), spec },
      {
        onSuccess: (id) => onSaved(id, !editing),
        onError: (err) => {
          if (!(err instanceof ApiError) || err.status !== 400) return setProblems([err.message]);
          const { fields, listed } = splitServerDetails(err.details);
          if (tab === 'form') for (const [name, message] of Object.entries(fields)) form.setError(name as never, { type: 'server', message });
          setProblems(listed.length ? listed : [err.message]);
        },
      },
    );
  };

  const onSave = async () => {
    if (tab === 'form') {
      await form.handleSubmit((values) => send(values, mergeFormIntoSpec(base.current, values)), () => setProblems([]))();
      return;
    }
    const parsed = yamlToSpec(yaml);
    if ('error' in parsed) return setProblems([parsed.error]);
    // spec 001 §5: the schedule is required, in either tab
    if (typeof parsed.spec.schedule !== 'string' || !parsed.spec.schedule.trim()) return setProblems(['schedule: This field is required']);
    if (!(await form.trigger(['name', 'namespace', 'labels']))) return setProblems(['Name is required: see the Form tab']);
    send({ ...form.getValues(), schedule: parsed.spec.schedule }, parsed.spec);
  };

  return (
    <SpecEditorFrame
      form={form}
      label={SCRAPERS.singular}
      what="scraper"
      tab={tab}
      onTab={switchTab}
      problems={problems}
      fields={<ScraperFormFields editing={editing} readOnly={readOnly} otherTypes={otherTypes} />}
      code={{
        value: yaml,
        onChange: setYaml,
        schema: schema.data,
        // while this server has no schema the editor runs without markers
        schemaState: schema.isLoading ? 'loading' : 'ready',
        schemaId: 'inmemory://schema/scrape_config.schema.json',
        label: 'Scraper spec (YAML)',
      }}
      readOnly={readOnly}
      editing={editing}
      busy={save.isPending}
      onSubmit={() => void onSave()}
      onBack={editing ? onBack : onTiles}
      remove={
        row && {
          title: `Delete ${SCRAPERS.singular}`,
          description: `Delete ${row.name ?? row.id}? It stops running and leaves the scrapers list.`,
          busy: remove.isPending,
          onConfirm: () => remove.mutate({ id: row.id, name: row.name ?? row.id }, { onSuccess: onDeleted }),
        }
      }
    />
  );
}
