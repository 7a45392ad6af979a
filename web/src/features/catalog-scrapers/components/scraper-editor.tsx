import { useRef, useState } from 'react';
import { FormProvider } from 'react-hook-form';
import { Button, makeStyles, MessageBar, MessageBarBody, MessageBarTitle, Spinner, Tab, TabList, tokens } from '@fluentui/react-components';
import { Delete20Regular } from '@fluentui/react-icons';
import { YamlEditor, type YamlProblem } from '../../../components/code/yaml-editor';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { useZodForm } from '../../../components/forms/form-dialog';
import { ApiError } from '../../../lib/api-client';
import { useDeleteScraper, useSaveScraper, useScrapeConfigSchema, type ScraperRow } from '../api';
import {
  FORM_TYPES,
  labelsOf,
  mergeFormIntoSpec,
  ScraperFormModel,
  specToYaml,
  splitServerDetails,
  templateOf,
  toFormModel,
  typeLabel,
  typesOf,
  yamlToSpec,
  type ScraperKind,
} from '../spec-model';
import { ScraperFormFields } from './scraper-form-fields';
import { ScraperTiles } from './scraper-tiles';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  problems: { margin: 0, paddingInlineStart: tokens.spacingHorizontalXL },
  actions: {
    display: 'flex',
    gap: tokens.spacingHorizontalS,
    marginTop: tokens.spacingVerticalM,
    paddingTop: tokens.spacingVerticalM,
    borderTop: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
  },
  spacer: { flex: 1 },
});

type Spec = Record<string, unknown>;
const isObj = (v: unknown): v is Spec => !!v && typeof v === 'object' && !Array.isArray(v);

export interface ScraperEditorProps {
  /** Absent for a new one: it starts from the type tiles. */
  row?: ScraperRow;
  /** No write permission, or a source the console does not edit. */
  readOnly: boolean;
  currentUserId: string;
  onSaved: (id: string, created: boolean) => void;
  onDeleted: () => void;
  /** Back from the tiles (or from a saved scraper's spec). */
  onBack: () => void;
}

/** The Spec tab: type tiles for a new scraper, then Form and Code over one spec; Save/Update, Back, Delete. */
export function ScraperEditor(props: ScraperEditorProps) {
  const s = useStyles();
  const [kind, setKind] = useState<ScraperKind | null>(null);
  if (!props.row && !kind) {
    return (
      <div className={s.root}>
        <ScraperTiles onPick={setKind} />
        <div className={s.actions}>
          <Button onClick={props.onBack}>Back</Button>
        </div>
      </div>
    );
  }
  return <SpecEditor {...props} kind={kind} onTiles={() => setKind(null)} />;
}

function SpecEditor({ row, readOnly, currentUserId, onSaved, onDeleted, onBack, kind, onTiles }: ScraperEditorProps & { kind: ScraperKind | null; onTiles: () => void }) {
  const s = useStyles();
  const editing = !!row;
  // the spec as last synced from either tab: the Form edits part of it, the Code tab all of it
  const base = useRef<Spec>(row ? (isObj(row.spec) ? row.spec : {}) : templateOf(kind!));
  const form = useZodForm(ScraperFormModel, toFormModel({ name: row?.name, namespace: row?.namespace, labels: row?.labels }, base.current));
  const [tab, setTab] = useState<'form' | 'code'>(kind?.key === 'custom' ? 'code' : 'form');
  const [yaml, setYaml] = useState(() => specToYaml(base.current));
  const [markers, setMarkers] = useState<YamlProblem[]>([]);
  const [problems, setProblems] = useState<string[]>([]);
  const [deleting, setDeleting] = useState(false);
  const schema = useScrapeConfigSchema();
  const save = useSaveScraper(row?.id, currentUserId);
  const remove = useDeleteScraper();
  const otherTypes = typesOf(base.current).filter((t) => !(FORM_TYPES as readonly string[]).includes(t)).map(typeLabel);

  const toCode = () => {
    base.current = mergeFormIntoSpec(base.current, form.getValues());
    setYaml(specToYaml(base.current));
    setProblems([]);
    setTab('code');
  };
  const toForm = () => {
    const parsed = yamlToSpec(yaml);
    if ('error' in parsed) return setProblems([parsed.error]);
    base.current = parsed.spec;
    const m = toFormModel({}, parsed.spec);
    const opts = { shouldDirty: true, shouldValidate: form.formState.isSubmitted };
    for (const key of ['schedule', ...FORM_TYPES] as const) form.setValue(key, m[key], opts);
    setProblems([]);
    setMarkers([]);
    setTab('form');
  };

  const send = (values: ScraperFormModel, spec: Spec) => {
    setProblems([]);
    save.mutate(
      { name: values.name.trim(), namespace: values.namespace.trim() || 'default', labels: labelsOf(values), spec },
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

  const busy = save.isPending;
  const markerErrors = markers.filter((m) => m.severity === 'error');
  const blocked = tab === 'code' && markerErrors.length > 0;
  return (
    <div className={s.root}>
      <TabList
        selectedValue={tab}
        onTabSelect={(_, d) => (d.value === 'code' ? tab !== 'code' && toCode() : tab !== 'form' && toForm())}
        aria-label="Spec editor"
        size="small"
      >
        <Tab value="form">Form</Tab>
        <Tab value="code">Code</Tab>
      </TabList>
      {problems.length > 0 && (
        <MessageBar intent="error" layout="multiline">
          <MessageBarBody>
            <MessageBarTitle>The scraper was not saved</MessageBarTitle>
            <ul className={s.problems} aria-label="Problems">
              {problems.map((p) => <li key={p}>{p}</li>)}
            </ul>
          </MessageBarBody>
        </MessageBar>
      )}
      <FormProvider {...form}>
        <form
          noValidate
          aria-label="Catalog Scraper"
          onSubmit={(e) => {
            e.preventDefault();
            void onSave();
          }}
        >
          {tab === 'form' ? (
            <ScraperFormFields editing={editing} readOnly={readOnly} otherTypes={otherTypes} />
          ) : schema.isLoading ? (
            <Spinner size="small" label="Loading the spec schema…" />
          ) : (
            <YamlEditor
              value={yaml}
              onChange={setYaml}
              schema={schema.data ?? undefined}
              schemaId="inmemory://schema/scrape_config.schema.json"
              onValidate={setMarkers}
              readOnly={readOnly}
              height="480px"
              label="Scraper spec (YAML)"
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
            <Button onClick={editing ? onBack : onTiles}>Back</Button>
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
          title="Delete Catalog Scraper"
          description={`Delete ${row.name ?? row.id}? It stops running and leaves the scrapers list.`}
          confirmLabel="Delete"
          danger
          busy={remove.isPending}
          onConfirm={() => remove.mutate({ id: row.id, name: row.name ?? row.id }, { onSuccess: onDeleted })}
          onCancel={() => setDeleting(false)}
        />
      )}
    </div>
  );
}
