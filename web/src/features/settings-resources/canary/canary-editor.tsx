import { useMemo, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { FormProvider } from 'react-hook-form';
import {
  Button,
  makeStyles,
  MessageBar,
  MessageBarActions,
  MessageBarBody,
  MessageBarTitle,
  Spinner,
  Tab,
  TabList,
  tokens,
} from '@fluentui/react-components';
import { Delete20Regular } from '@fluentui/react-icons';
import { YamlEditor, type YamlProblem } from '../../../components/code/yaml-editor';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { useZodForm } from '../../../components/forms/form-dialog';
import { ApiError, errorMessage } from '../../../lib/api-client';
import { useCanarySchema, useDeleteCanary, useSaveCanary, type Canary } from './api';
import {
  CanaryFormModel,
  labelsOf,
  mergeFormIntoSpec,
  NEW_SPEC,
  specToYaml,
  splitServerDetails,
  toFormModel,
  yamlToSpec,
} from './spec-model';
import { CanaryFormFields } from './canary-form-fields';

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

const FORM_FIELDS = new Set(['http', 'tcp', 'schedule']);

export interface CanaryEditorProps {
  /** Absent for a new canary. */
  canary?: Canary;
  canWrite: boolean;
  listHref: string;
  canaryHref: (id: string) => string;
  /** Loads the canary again and restarts the editor on it (after a 409: it changed in the cluster). */
  onReload?: () => void;
}

/**
 * Whether the console may edit a canary, and what to say about where it comes from. A canary from a Canary custom
 * resource is edited here (the server patches the CR) unless GitOps manages it (`read_only`, "Linked to {source}");
 * a canary from another source (an agent, a config file, a component) stays read-only, as before source links.
 */
export function canaryOrigin(canary: Canary | undefined): { readOnly: boolean; link: string | null; kubernetes: string | null } {
  if (!canary) return { readOnly: false, link: null, kubernetes: null };
  const k = canary.kubernetes;
  const fromCr = !!k;
  const otherSource = !fromCr && !!canary.source && canary.source !== 'UI' && canary.source !== 'KubernetesCRD';
  const readOnly = canary.read_only === true || otherSource;
  return {
    readOnly,
    link: readOnly ? (canary.source_link ?? canary.source ?? null) : null,
    kubernetes: fromCr && !readOnly ? `${k.kind} ${k.namespace}/${k.name}` : null,
  };
}

/** The spec editor: Form and Code tabs over one spec, Save/Update, Cancel, Delete. */
export function CanaryEditor({ canary, canWrite, listHref, canaryHref, onReload }: CanaryEditorProps) {
  const s = useStyles();
  const [, navigate] = useLocation();
  const editing = !!canary;
  const origin = canaryOrigin(canary);
  const readOnly = !canWrite || origin.readOnly;
  // the resourceVersion the user started editing from: a live refetch of the canary must not move it, or a change
  // made meanwhile in the cluster would be overwritten instead of answered with 409
  const editedVersion = useRef(canary?.kubernetes?.resource_version ?? undefined);
  const [conflict, setConflict] = useState<string | null>(null);
  const schema = useCanarySchema();
  const save = useSaveCanary(canary?.id);
  const remove = useDeleteCanary();

  // the spec as last synced from either tab; the Form tab edits part of it, the Code tab all of it
  const base = useRef<Record<string, unknown>>(canary?.spec ?? NEW_SPEC);
  const form = useZodForm(CanaryFormModel, {
    ...toFormModel({ name: canary?.name ?? '', namespace: canary?.namespace ?? 'default', labels: canary?.labels ?? null }, base.current),
    ...(!canary && { http: [{ name: '', url: '', thresholdMillis: '', responseCodes: '' }] }),
  });
  const [tab, setTab] = useState<'form' | 'code'>('form');
  const [yaml, setYaml] = useState('');
  const [markers, setMarkers] = useState<YamlProblem[]>([]);
  const [problems, setProblems] = useState<string[]>([]);
  const [deleting, setDeleting] = useState(false);

  const otherTypes = useMemo(
    () => Object.keys(base.current).filter((k) => Array.isArray(base.current[k]) && !FORM_FIELDS.has(k) && k !== 'agentSelector'),
    // recomputed when the tab changes: that is when base moves
    [tab], // eslint-disable-line react-hooks/exhaustive-deps
  );
  const markerErrors = markers.filter((m) => m.severity === 'error');

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
    const m = toFormModel({ name: '', namespace: '', labels: null }, parsed.spec);
    const opts = { shouldDirty: true, shouldValidate: form.formState.isSubmitted };
    form.setValue('schedule', m.schedule, opts);
    form.setValue('http', m.http, opts);
    form.setValue('tcp', m.tcp, opts);
    setProblems([]);
    setMarkers([]);
    setTab('form');
  };

  const send = (values: CanaryFormModel, spec: Record<string, unknown>) => {
    setProblems([]);
    setConflict(null);
    const version = editedVersion.current;
    save.mutate(
      { name: values.name.trim(), namespace: values.namespace.trim(), labels: labelsOf(values), spec, ...(version && { resource_version: version }) },
      {
        onSuccess: (saved) => {
          base.current = saved.spec;
          editedVersion.current = saved.kubernetes?.resource_version ?? undefined;
          if (!editing) navigate(canaryHref(saved.id), { replace: true });
        },
        onError: (err) => {
          if (err instanceof ApiError && err.status === 409) return setConflict(err.message);
          if (!(err instanceof ApiError) || err.status !== 400) return setProblems([err.message]);
          const { fields, other } = splitServerDetails(err.details);
          // on the Code tab every problem is listed above the editor; on the Form tab they sit by their fields
          const onForm = tab === 'form' ? fields : {};
          for (const [name, message] of Object.entries(onForm)) form.setError(name as never, { type: 'server', message });
          const listed = tab === 'form' ? other : Object.entries(fields).map(([k, v]) => `${k}: ${v}`).concat(other);
          setProblems(listed.length ? listed : Object.keys(onForm).length ? [] : [err.message]);
        },
      },
    );
  };

  const onSave = async () => {
    if (tab === 'form') {
      await form.handleSubmit((values) => send(values, mergeFormIntoSpec(base.current, values)))();
      return;
    }
    const parsed = yamlToSpec(yaml);
    if ('error' in parsed) return setProblems([parsed.error]);
    if (!(await form.trigger(['name', 'namespace', 'labels']))) {
      setProblems(['Name and namespace are required: see the Form tab']);
      return;
    }
    send(form.getValues(), parsed.spec);
  };

  const busy = save.isPending;
  const blocked = tab === 'code' && (markerErrors.length > 0 || !schema.data);
  return (
    <div className={s.root}>
      {origin.link && (
        <MessageBar intent="info">
          <MessageBarBody>
            <MessageBarTitle>Linked to {origin.link}</MessageBarTitle>
            This health check is managed by its source; edit it there.
          </MessageBarBody>
        </MessageBar>
      )}
      {origin.kubernetes && (
        <MessageBar intent="info">
          <MessageBarBody>
            <MessageBarTitle>Kubernetes {origin.kubernetes}</MessageBarTitle>
            This health check comes from a custom resource: saving here updates the resource in the cluster.
          </MessageBarBody>
        </MessageBar>
      )}
      {conflict && (
        <MessageBar intent="warning" layout="multiline" role="alert">
          <MessageBarBody>
            <MessageBarTitle>Changed in the cluster: not saved</MessageBarTitle>
            {conflict}
          </MessageBarBody>
          {onReload && (
            <MessageBarActions>
              <Button onClick={onReload}>Reload</Button>
            </MessageBarActions>
          )}
        </MessageBar>
      )}
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
            <MessageBarTitle>The health check was not saved</MessageBarTitle>
            <ul className={s.problems} aria-label="Problems">
              {problems.map((p) => <li key={p}>{p}</li>)}
            </ul>
          </MessageBarBody>
        </MessageBar>
      )}
      <FormProvider {...form}>
        <form
          noValidate
          aria-label="Health check"
          onSubmit={(e) => {
            e.preventDefault();
            void onSave();
          }}
        >
          {tab === 'form' ? (
            <CanaryFormFields editing={editing} readOnly={readOnly} otherTypes={otherTypes} />
          ) : schema.data ? (
            <YamlEditor
              value={yaml}
              onChange={setYaml}
              schema={schema.data}
              schemaId="inmemory://schema/canary.schema.json"
              onValidate={setMarkers}
              readOnly={readOnly}
              height="480px"
              label="Canary spec (YAML)"
            />
          ) : (
            <Spinner size="small" label={schema.error ? `The spec schema could not be loaded: ${errorMessage(schema.error)}` : 'Loading the spec schema…'} />
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
                {busy ? 'Saving…' : editing ? 'Update' : 'Save'}
              </Button>
            )}
            <Button onClick={() => navigate(listHref)}>{readOnly ? 'Back' : 'Cancel'}</Button>
            <span className={s.spacer} />
            {editing && !readOnly && (
              <Button appearance="subtle" icon={<Delete20Regular />} onClick={() => setDeleting(true)}>
                Delete
              </Button>
            )}
          </div>
        </form>
      </FormProvider>
      {deleting && canary && (
        <ConfirmDialog
          open
          title="Delete Health Check"
          description={`Delete ${canary.name}? Its checks stop running and leave the health dashboard.`}
          confirmLabel="Delete"
          danger
          busy={remove.isPending}
          onConfirm={() => remove.mutate(canary, { onSuccess: () => navigate(listHref, { replace: true }) })}
          onCancel={() => setDeleting(false)}
        />
      )}
    </div>
  );
}
