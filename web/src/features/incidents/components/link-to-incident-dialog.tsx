import { useEffect, useMemo, useState } from 'react';
import { Button, Combobox, Field, makeStyles, Option, Select, Spinner, Text, Textarea, tokens } from '@fluentui/react-components';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { AppDialog } from '../../../components/app-dialog';
import { api } from '../../../lib/api-client';
import { toast } from '../../../lib/toast';
import { createIncidentSequence, incidentKeys, useIncidentSearch } from '../api';
import { humanize, INCIDENT_DEFAULTS, INCIDENT_SEVERITIES, INCIDENT_TYPES } from '../model';

/** Spec 000 §9: searches wait for 400 ms of quiet. */
const SEARCH_MS = 400;
const NEW = '__new__';

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  row: { display: 'grid', gridTemplateColumns: '1fr 1fr', gap: tokens.spacingHorizontalM },
  create: { fontStyle: 'italic' },
});

/** What is being linked: a health check here; the evidence row it becomes. */
export interface LinkTarget {
  checkId: string;
  name: string;
  /** Another kind of evidence (a catalog item's selected lines): its evidences columns, in place of the check's. */
  evidence?: Record<string, unknown>;
  /** What the dialog calls it ("check" unless given). */
  noun?: string;
}

export interface LinkToIncidentDialogProps {
  target: LinkTarget;
  currentUserId: string;
  onClose: () => void;
}

type Choice = { kind: 'existing'; id: string; label: string } | { kind: 'new'; title: string } | null;

export interface LinkErrors {
  incident?: string;
  hypothesis?: string;
  severity?: string;
  type?: string;
}

/** The dialog's validation (spec 000 §5 "Link to incident"). */
export function linkErrors(incident: Choice, hypothesis: Choice, severity: string, type: string): LinkErrors {
  const errors: LinkErrors = {};
  if (!incident) errors.incident = 'Must select or create an incident';
  if (incident?.kind === 'existing' && !hypothesis) errors.hypothesis = 'Must select or create a hypothesis';
  if (incident?.kind === 'new') {
    if (!severity) errors.severity = 'Please select incident severity';
    if (!type) errors.type = 'Please select an incident type';
  }
  return errors;
}

/** "Link to Incident": attach the check as evidence to an incident found by search, or to a new one. */
export function LinkToIncidentDialog({ target, currentUserId, onClose }: LinkToIncidentDialogProps) {
  const s = useStyles();
  const qc = useQueryClient();
  const [incidentText, setIncidentText] = useState('');
  const [search, setSearch] = useState('');
  const [incident, setIncident] = useState<Choice>(null);
  const [hypothesisText, setHypothesisText] = useState('');
  const [hypothesis, setHypothesis] = useState<Choice>(null);
  const [description, setDescription] = useState('');
  const [severity, setSeverity] = useState<string>(INCIDENT_DEFAULTS.severity);
  const [type, setType] = useState<string>(INCIDENT_DEFAULTS.type);
  const [tried, setTried] = useState(false);

  useEffect(() => {
    const t = setTimeout(() => setSearch(incidentText), SEARCH_MS);
    return () => clearTimeout(t);
  }, [incidentText]);
  const incidents = useIncidentSearch(search, true);
  const chosen = incident?.kind === 'existing' ? incidents.data?.find((i) => i.id === incident.id) : undefined;
  const hypotheses = useMemo(
    () => (chosen?.hypotheses ?? []).filter((h) => h.title.toLowerCase().includes(hypothesisText.trim().toLowerCase()) || hypothesis?.kind === 'existing'),
    [chosen, hypothesisText, hypothesis],
  );
  const errors = tried ? linkErrors(incident, hypothesis, severity, type) : {};

  const evidence = {
    ...(target.evidence ?? { type: 'check', check_id: target.checkId, evidence: { name: target.name, includeMessages: true } }),
    description: description.trim() || target.name,
  };

  const link = useMutation({
    mutationFn: async () => {
      if (incident?.kind === 'new') {
        await createIncidentSequence(
          { title: incident.title, description: description.trim(), severity, type, status: INCIDENT_DEFAULTS.status },
          currentUserId,
          { hypothesisTitle: hypothesis?.kind === 'new' ? hypothesis.title : undefined, evidence },
        );
        return;
      }
      if (incident?.kind !== 'existing' || !hypothesis) return;
      let hypothesisId = hypothesis.kind === 'existing' ? hypothesis.id : '';
      if (hypothesis.kind === 'new') {
        const rows = await api.post<{ id: string }[]>(
          '/api/db/hypotheses',
          { incident_id: incident.id, title: hypothesis.title, type: 'root', status: 'possible', created_by: currentUserId },
          { query: { select: 'id' }, headers: { prefer: 'return=representation' } },
        );
        hypothesisId = rows[0].id;
      }
      await api.post('/api/db/evidences', { ...evidence, hypothesis_id: hypothesisId, created_by: currentUserId });
    },
    onSuccess: () => {
      toast.success('Linked to incident successfully');
      void qc.invalidateQueries({ queryKey: incidentKeys.all });
      onClose();
    },
  });

  const submit = () => {
    setTried(true);
    if (Object.keys(linkErrors(incident, hypothesis, severity, type)).length) return;
    link.mutate();
  };

  const typed = incidentText.trim();
  const exact = incidents.data?.some((i) => i.title.toLowerCase() === typed.toLowerCase());
  const typedHypothesis = hypothesisText.trim();

  return (
    <AppDialog
      open
      onOpenChange={(o) => !o && !link.isPending && onClose()}
      title="Link to Incident"
      size="medium"
      actions={
        <>
          <Button appearance="secondary" onClick={onClose} disabled={link.isPending}>Cancel</Button>
          <Button appearance="primary" disabledFocusable={link.isPending} icon={link.isPending ? <Spinner size="tiny" /> : undefined} onClick={submit}>
            {link.isPending ? 'Linking..' : 'Link'}
          </Button>
        </>
      }
    >
      <div className={s.body}>
        <Text>Attach the {target.noun ?? 'check'} <strong>{target.name}</strong> as evidence.</Text>
        <Field label="Incident" required validationMessage={errors.incident}>
          <Combobox
            freeform
            aria-label="Incident"
            placeholder="Search incidents or type a new title"
            value={incidentText}
            selectedOptions={incident?.kind === 'existing' ? [incident.id] : incident?.kind === 'new' ? [NEW] : []}
            onChange={(e) => {
              setIncidentText(e.target.value);
              setIncident(null);
              setHypothesis(null);
              setHypothesisText('');
            }}
            onOptionSelect={(_, d) => {
              if (d.optionValue === NEW) {
                setIncident({ kind: 'new', title: typed });
                setIncidentText(typed);
              } else if (d.optionValue) {
                const found = incidents.data?.find((i) => i.id === d.optionValue);
                if (found) {
                  setIncident({ kind: 'existing', id: found.id, label: `${found.incident_id} ${found.title}` });
                  setIncidentText(found.title);
                  const root = found.hypotheses.find((h) => h.type === 'root') ?? found.hypotheses[0];
                  if (root) {
                    setHypothesis({ kind: 'existing', id: root.id, label: root.title });
                    setHypothesisText(root.title);
                  }
                }
              }
            }}
          >
            {typed && !exact && (
              <Option value={NEW} text={typed} className={s.create}>
                Create “{typed}”
              </Option>
            )}
            {(incidents.data ?? []).map((i) => (
              <Option key={i.id} value={i.id} text={i.title}>
                {`${i.incident_id} · ${i.title} (${i.status})`}
              </Option>
            ))}
            {!typed && incidents.data && !incidents.data.length && <Option disabled value="" text="">Start typing to search</Option>}
          </Combobox>
        </Field>
        <Field label="Description">
          <Textarea value={description} onChange={(_, d) => setDescription(d.value)} placeholder={`What ${target.name} shows`} resize="vertical" />
        </Field>
        {incident?.kind === 'new' && (
          <div className={s.row}>
            <Field label="Type" required validationMessage={errors.type}>
              <Select value={type} onChange={(_, d) => setType(d.value)}>
                <option value="">Select a type</option>
                {INCIDENT_TYPES.map((t) => (
                  <option key={t} value={t}>{humanize(t)}</option>
                ))}
              </Select>
            </Field>
            <Field label="Severity" required validationMessage={errors.severity}>
              <Select value={severity} onChange={(_, d) => setSeverity(d.value)}>
                <option value="">Select a severity</option>
                {INCIDENT_SEVERITIES.map((v) => (
                  <option key={v} value={v}>{humanize(v)}</option>
                ))}
              </Select>
            </Field>
          </div>
        )}
        <Field
          label="Hypothesis"
          required={incident?.kind === 'existing'}
          validationMessage={errors.hypothesis}
          hint={incident?.kind === 'new' ? 'Left empty, the root hypothesis takes the incident’s title.' : undefined}
        >
          <Combobox
            freeform
            aria-label="Hypothesis"
            placeholder={incident ? 'Search hypotheses or type a new one' : 'Choose an incident first'}
            disabled={!incident}
            value={hypothesisText}
            selectedOptions={hypothesis?.kind === 'existing' ? [hypothesis.id] : hypothesis?.kind === 'new' ? [NEW] : []}
            onChange={(e) => {
              const v = e.target.value;
              setHypothesisText(v);
              setHypothesis(v.trim() ? { kind: 'new', title: v.trim() } : null);
            }}
            onOptionSelect={(_, d) => {
              if (d.optionValue === NEW) setHypothesis({ kind: 'new', title: typedHypothesis });
              else {
                const h = chosen?.hypotheses.find((x) => x.id === d.optionValue);
                if (h) {
                  setHypothesis({ kind: 'existing', id: h.id, label: h.title });
                  setHypothesisText(h.title);
                }
              }
            }}
          >
            {typedHypothesis && !chosen?.hypotheses.some((h) => h.title === typedHypothesis) && (
              <Option value={NEW} text={typedHypothesis} className={s.create}>
                Create “{typedHypothesis}”
              </Option>
            )}
            {hypotheses.map((h) => (
              <Option key={h.id} value={h.id} text={h.title}>
                {`${h.title} (${h.type})`}
              </Option>
            ))}
          </Combobox>
        </Field>
      </div>
    </AppDialog>
  );
}
