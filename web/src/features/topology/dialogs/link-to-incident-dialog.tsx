import { useState } from 'react';
import { Button, Combobox, Field, makeStyles, Option, Select, Spinner, Text, Textarea, tokens } from '@fluentui/react-components';
import { INCIDENT_DEFAULTS, IncidentSeverity, IncidentType } from '@contracts/incidents';
import { AppDialog } from '../../../components/app-dialog';
import { errorMessage } from '../../../lib/api-client';
import { toast } from '../../../lib/toast';
import { componentEvidence, useIncidentChoices, useLinkComponentToIncident, type IncidentChoice } from './incident-link-api';
import type { ComponentDialogProps } from './types';
import { useDebouncedValue } from './use-debounced-value';

const NEW = '__new__';

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  row: { display: 'grid', gridTemplateColumns: '1fr 1fr', gap: tokens.spacingHorizontalM },
  create: { fontStyle: 'italic' },
  error: { color: tokens.colorPaletteRedForeground1 },
});

type Choice = { kind: 'existing'; incident: IncidentChoice } | { kind: 'new'; title: string } | null;

/** "Link to Incident": the component as `topology` evidence on an open incident (its root hypothesis) or a new one. */
export function LinkToIncidentDialog({ open, onClose, component }: ComponentDialogProps) {
  const s = useStyles();
  const [text, setText] = useState('');
  const [choice, setChoice] = useState<Choice>(null);
  const [description, setDescription] = useState('');
  const [severity, setSeverity] = useState<string>(INCIDENT_DEFAULTS.severity);
  const [type, setType] = useState<string>(INCIDENT_DEFAULTS.type);
  const [tried, setTried] = useState(false);
  const search = useDebouncedValue(text);
  const incidents = useIncidentChoices(search, open);
  const link = useLinkComponentToIncident();
  const typed = text.trim();
  const exact = incidents.data?.some((i) => i.title.toLowerCase() === typed.toLowerCase());

  const submit = () => {
    setTried(true);
    if (!choice) return;
    const evidence = componentEvidence(component, description);
    link.mutate(choice.kind === 'new' ? { kind: 'new', title: choice.title, severity, type, evidence } : { kind: 'existing', incident: choice.incident, evidence }, {
      onSuccess: () => {
        toast.success('Linked to incident successfully');
        onClose();
      },
      onError: (err) => toast.error(errorMessage(err)),
    });
  };

  return (
    <AppDialog
      open={open}
      onOpenChange={(o) => !o && !link.isPending && onClose()}
      title="Link to Incident"
      size="medium"
      actions={
        <>
          <Button onClick={onClose} disabled={link.isPending}>Cancel</Button>
          <Button appearance="primary" disabledFocusable={link.isPending} icon={link.isPending ? <Spinner size="tiny" /> : undefined} onClick={submit}>
            {link.isPending ? 'Linking..' : 'Link'}
          </Button>
        </>
      }
    >
      <div className={s.body}>
        <Text>Attach the component <strong>{component.name}</strong> as evidence.</Text>
        <Field label="Incident" required validationMessage={tried && !choice ? 'Must select or create an incident' : undefined}>
          <Combobox
            freeform
            aria-label="Incident"
            placeholder="Search incidents or type a new title"
            value={text}
            selectedOptions={choice?.kind === 'existing' ? [choice.incident.id] : choice?.kind === 'new' ? [NEW] : []}
            onChange={(e) => {
              setText(e.target.value);
              setChoice(null);
            }}
            onOptionSelect={(_, d) => {
              if (d.optionValue === NEW) return setChoice({ kind: 'new', title: typed });
              const found = incidents.data?.find((i) => i.id === d.optionValue);
              if (found) {
                setChoice({ kind: 'existing', incident: found });
                setText(found.title);
              }
            }}
          >
            {typed && !exact && <Option value={NEW} text={typed} className={s.create}>{`Create “${typed}”`}</Option>}
            {(incidents.data ?? []).map((i) => (
              <Option key={i.id} value={i.id} text={i.title}>{`${i.incident_id} · ${i.title} (${i.status})`}</Option>
            ))}
          </Combobox>
        </Field>
        {choice?.kind === 'new' && (
          <div className={s.row}>
            <Field label="Type" required>
              <Select value={type} onChange={(_, d) => setType(d.value)}>
                {IncidentType.options.map((t) => <option key={t} value={t}>{t}</option>)}
              </Select>
            </Field>
            <Field label="Severity" required>
              <Select value={severity} onChange={(_, d) => setSeverity(d.value)}>
                {IncidentSeverity.options.map((v) => <option key={v} value={v}>{v}</option>)}
              </Select>
            </Field>
          </div>
        )}
        <Field label="Description">
          <Textarea value={description} onChange={(_, d) => setDescription(d.value)} placeholder={`What ${component.name} shows`} resize="vertical" />
        </Field>
      </div>
    </AppDialog>
  );
}
