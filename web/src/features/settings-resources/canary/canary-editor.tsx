import { useMemo, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { Button, MessageBar, MessageBarActions, MessageBarBody, MessageBarTitle } from '@fluentui/react-components';
import { useZodForm } from '../../../components/forms/form-dialog';
import { ApiError, errorMessage } from '../../../lib/api-client';
import { useCanarySchema, useDeleteCanary, useSaveCanary, type Canary } from './api';
import {
  CanaryFormModel,
  labelsOf,
  mergeFormIntoSpec,
  NEW_SPEC,
  splitServerDetails,
  toFormModel,
  yamlToSpec,
} from './spec-model';
import { CanaryFormFields } from './canary-form-fields';
import { SpecEditorFrame } from '../components/spec-editor-frame';
import { useSpecTabs, type FormSpecModel } from '../components/use-spec-tabs';


const FORM_FIELDS = new Set(['http', 'tcp', 'schedule']);

/** The Form edits the schedule and the HTTP and TCP checks; the rest of the spec is the Code tab's. */
const SPEC_MODEL: FormSpecModel<CanaryFormModel> = {
  merge: mergeFormIntoSpec,
  fromSpec: (spec) => {
    const { schedule, http, tcp } = toFormModel({ name: '', namespace: '', labels: null }, spec);
    return { schedule, http, tcp };
  },
};

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

  const start = canary?.spec ?? NEW_SPEC;
  const form = useZodForm(CanaryFormModel, {
    ...toFormModel({ name: canary?.name ?? '', namespace: canary?.namespace ?? 'default', labels: canary?.labels ?? null }, start),
    ...(!canary && { http: [{ name: '', url: '', thresholdMillis: '', responseCodes: '' }] }),
  });
  // the spec as last synced from either tab (base): the Form tab edits part of it, the Code tab all of it
  const { base, tab, yaml, setYaml, problems, setProblems, switchTab } = useSpecTabs(form, start, SPEC_MODEL);

  const otherTypes = useMemo(
    () => Object.keys(base.current).filter((k) => Array.isArray(base.current[k]) && !FORM_FIELDS.has(k) && k !== 'agentSelector'),
    // recomputed when the tab changes: that is when base moves
    [tab], // eslint-disable-line react-hooks/exhaustive-deps
  );

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

  return (
    <SpecEditorFrame
      form={form}
      label="Health check"
      what="health check"
      tab={tab}
      onTab={switchTab}
      problems={problems}
      banner={
        <>
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
        </>
      }
      fields={<CanaryFormFields editing={editing} readOnly={readOnly} otherTypes={otherTypes} />}
      code={{
        value: yaml,
        onChange: setYaml,
        schema: schema.data,
        schemaState: schema.data ? 'ready' : schema.error ? { error: errorMessage(schema.error) } : 'loading',
        schemaId: 'inmemory://schema/canary.schema.json',
        label: 'Canary spec (YAML)',
      }}
      blockWithoutSchema
      readOnly={readOnly}
      editing={editing}
      busy={save.isPending}
      busyLabel="Saving…"
      onSubmit={() => void onSave()}
      backLabel={readOnly ? 'Back' : 'Cancel'}
      onBack={() => navigate(listHref)}
      remove={
        canary && {
          title: 'Delete Health Check',
          description: `Delete ${canary.name}? Its checks stop running and leave the health dashboard.`,
          busy: remove.isPending,
          onConfirm: () => remove.mutate(canary, { onSuccess: () => navigate(listHref, { replace: true }) }),
        }
      }
    />
  );
}
