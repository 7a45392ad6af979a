import { useEffect, useState } from 'react';
import { Combobox, Field, Option } from '@fluentui/react-components';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { FormDialog, useZodForm } from '../../../components/forms/form-dialog';
import { SelectField, TextField } from '../../../components/forms/form-fields';
import { api } from '../../../lib/api-client';
import { VALIDATION_MESSAGES } from '../../../lib/validation';
import { ilikeValue, type Hypothesis } from '../api';
import { EVIDENCE_TYPES, humanize } from '../model';
import { useCreateEvidence } from '../work-api';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const EvidenceForm = z
  .object({
    type: z.enum(EVIDENCE_TYPES),
    description: z.string().trim().max(2000, 'Description is too long'),
    checkId: z.string(),
    name: z.string().trim(),
    refId: z.string().trim(),
    text: z.string(),
  })
  .superRefine((v, ctx) => {
    const need = (path: string, ok: boolean, message: string = VALIDATION_MESSAGES.required) => {
      if (!ok) ctx.addIssue({ code: 'custom', path: [path], message });
    };
    if (v.type === 'check') need('checkId', !!v.checkId);
    if (v.type === 'log' || v.type === 'comment') need('text', !!v.text.trim());
    if (v.type === 'config' || v.type === 'topology') need('name', !!v.name);
    if (v.refId) need('refId', UUID.test(v.refId), 'Enter an id such as 0195c9b2-7f1a-7c3e-9a41-3f1d2a8b6c10');
    if (v.type === 'config_change' || v.type === 'config_analysis') need('refId', !!v.refId);
    if (v.type !== 'comment' && v.type !== 'check') need('description', !!v.description);
  });
type EvidenceForm = z.infer<typeof EvidenceForm>;

/** The evidences row for the chosen type: the reference column and the evidence payload it renders from. */
export function evidenceBody(v: EvidenceForm, checkName?: string): Record<string, unknown> {
  const ref = v.refId || null;
  switch (v.type) {
    case 'check':
      return { type: 'check', check_id: v.checkId, description: v.description || checkName || 'Check', evidence: { name: checkName, includeMessages: true } };
    case 'log':
      return { type: 'log', description: v.description, evidence: { lines: v.text.split('\n').filter((l) => l.trim()).map((message) => ({ message })) } };
    case 'comment':
      return { type: 'comment', description: v.description || v.text.trim().slice(0, 120), evidence: { comment: v.text.trim() } };
    case 'config':
      return { type: 'config', config_id: ref, description: v.description, evidence: { configName: v.name, id: ref } };
    case 'topology':
      return { type: 'topology', component_id: ref, description: v.description, evidence: { name: v.name, id: ref } };
    case 'config_change':
      return { type: 'config_change', config_change_id: ref, description: v.description, evidence: { id: ref } };
    case 'config_analysis':
      return { type: 'config_analysis', config_analysis_id: ref, description: v.description, evidence: { id: ref } };
  }
}

function useCheckSearch(q: string, enabled: boolean) {
  return useQuery({
    queryKey: ['db', 'checks', 'evidence-search', q] as const,
    queryFn: ({ signal }) =>
      api.get('/api/db/checks', {
        query: { select: 'id,name,type', deleted_at: 'is.null', ...(q.trim() ? { name: `ilike.${ilikeValue(q)}` } : {}), order: 'name.asc', limit: 20 },
        schema: z.array(z.object({ id: z.string(), name: z.string(), type: z.string().nullish() })),
        signal,
      }),
    enabled,
  });
}

export interface AddEvidenceDialogProps {
  incidentId: string;
  currentUserId: string;
  hypothesis: Pick<Hypothesis, 'id' | 'title'>;
  /** `true` when something was added. */
  onClose: (added?: boolean) => void;
}

/** Adds evidence of any type to a hypothesis; the fields follow the type. */
export function AddEvidenceDialog({ incidentId, currentUserId, hypothesis, onClose }: AddEvidenceDialogProps) {
  const create = useCreateEvidence(incidentId, currentUserId);
  const form = useZodForm(EvidenceForm, { type: 'check', description: '', checkId: '', name: '', refId: '', text: '' });
  const type = form.watch('type');
  const [q, setQ] = useState('');
  const [debounced, setDebounced] = useState('');
  useEffect(() => {
    const t = setTimeout(() => setDebounced(q), 300);
    return () => clearTimeout(t);
  }, [q]);
  const checks = useCheckSearch(debounced, type === 'check');
  const checkId = form.watch('checkId');
  const checkName = checks.data?.find((c) => c.id === checkId)?.name;
  const checkError = form.formState.errors.checkId?.message;

  return (
    <FormDialog
      open
      onOpenChange={(o) => !o && onClose(false)}
      title={`Add evidence to “${hypothesis.title}”`}
      size="medium"
      form={form}
      onSubmit={(v) => create.mutate({ hypothesis_id: hypothesis.id, ...(evidenceBody(v, checkName ?? q) as { type: string; description: string }) }, { onSuccess: () => onClose(true) })}
      submitLabel="Add"
      busy={create.isPending}
      busyLabel="Adding…"
    >
      <SelectField<EvidenceForm> name="type" label="Type" required options={EVIDENCE_TYPES.map((t) => ({ value: t, label: humanize(t) }))} />
      {type === 'check' && (
        <Field label="Check" required validationMessage={form.formState.isSubmitted ? checkError : undefined}>
          <Combobox
            freeform
            placeholder="Search health checks"
            value={q}
            onChange={(e) => setQ(e.target.value)}
            onOptionSelect={(_, d) => {
              form.setValue('checkId', d.optionValue ?? '', { shouldValidate: form.formState.isSubmitted });
              setQ(d.optionText ?? '');
            }}
          >
            {(checks.data ?? []).map((c) => (
              <Option key={c.id} value={c.id} text={c.name}>{c.name}</Option>
            ))}
            {checks.data && !checks.data.length && <Option disabled value="" text="">No options found</Option>}
          </Combobox>
        </Field>
      )}
      {(type === 'config' || type === 'topology') && (
        <TextField<EvidenceForm> name="name" label={type === 'config' ? 'Config name' : 'Component name'} required />
      )}
      {type !== 'check' && type !== 'log' && type !== 'comment' && (
        <TextField<EvidenceForm>
          name="refId"
          label={type === 'config' ? 'Config ID' : type === 'topology' ? 'Component ID' : type === 'config_change' ? 'Config change ID' : 'Config analysis ID'}
          required={type === 'config_change' || type === 'config_analysis'}
          hint="The id of the catalog or topology record"
        />
      )}
      {type === 'log' && <TextField<EvidenceForm> name="text" label="Log lines" multiline required placeholder="One log line per line" />}
      {type === 'comment' && <TextField<EvidenceForm> name="text" label="Comment" multiline required />}
      <TextField<EvidenceForm> name="description" label="Description" required={type !== 'comment' && type !== 'check'} />
    </FormDialog>
  );
}
