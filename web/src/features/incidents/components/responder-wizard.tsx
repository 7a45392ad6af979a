import { useEffect, useMemo, useState } from 'react';
import {
  Avatar, Button, Combobox, Field, Input, makeStyles, Option, Radio, RadioGroup, Spinner, Text, Textarea, tokens,
} from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import { usePeopleSearch, type PersonRef } from '../api';
import {
  EXTERNAL_ID_FIELD, RESPONDER_FIELDS, RESPONDER_TYPE_LABELS, teamResponderDefaults, teamResponderTypes, type ResponderType,
} from '../model';
import { useAddResponder, useResponderTeams } from '../work-api';

type TeamType = Exclude<ResponderType, 'person'>;
type Step = 'select' | 'type' | 'details';

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  steps: { display: 'flex', gap: tokens.spacingHorizontalS, color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200, listStyle: 'none', margin: 0, padding: 0 },
  current: { color: tokens.colorBrandForeground1, fontWeight: tokens.fontWeightSemibold },
  teams: { maxHeight: '240px', overflowY: 'auto' },
  // spec 000 §9: a type list scrolls beyond 6 entries
  types: { maxHeight: `${6 * 32}px`, overflowY: 'auto' },
  muted: { color: tokens.colorNeutralForeground3 },
  nowrap: { whiteSpace: 'nowrap', flexShrink: 0 },
  or: { color: tokens.colorNeutralForeground3, textAlign: 'center', fontSize: tokens.fontSizeBase200 },
});

const EMAIL_LIST = /^\s*[^@\s,;]+@[^@\s,;]+(\s*[,;]\s*[^@\s,;]+@[^@\s,;]+)*\s*$/;
export const INVALID = 'Please provide valid value';

/** The details form's messages: every field of the type is required; `to` must hold email addresses. */
export function responderErrors(type: TeamType, values: Record<string, string>): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const f of RESPONDER_FIELDS[type]) {
    const v = values[f.name]?.trim() ?? '';
    if (!v || (type === 'email' && f.name === 'to' && !EMAIL_LIST.test(v))) errors[f.name] = INVALID;
  }
  return errors;
}

export interface ResponderWizardProps {
  incidentId: string;
  currentUser: PersonRef;
  onClose: () => void;
}

/**
 * Add responder (spec 000 §4): Select Responder (a team or a person, exclusive); for a team, its Responder Type
 * (only the types on its spec.responder_clients), then the details form (Save Team Responder). A person is added
 * at once with Add. Back returns one step.
 */
export function ResponderWizard({ incidentId, currentUser, onClose }: ResponderWizardProps) {
  const s = useStyles();
  const teams = useResponderTeams(true);
  const add = useAddResponder(incidentId, currentUser.id);
  const [step, setStep] = useState<Step>('select');
  const [teamId, setTeamId] = useState('');
  const [person, setPerson] = useState<PersonRef | null>(null);
  const [personQuery, setPersonQuery] = useState('');
  const [debounced, setDebounced] = useState('');
  const [type, setType] = useState<TeamType | ''>('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(personQuery), 300);
    return () => clearTimeout(t);
  }, [personQuery]);
  const people = usePeopleSearch(debounced, step === 'select');

  const team = teams.data?.find((t) => t.id === teamId);
  const types = useMemo(() => teamResponderTypes(team?.spec), [team]);
  const errors = type ? responderErrors(type, values) : {};
  const fields = type ? [...RESPONDER_FIELDS[type], EXTERNAL_ID_FIELD] : [];

  const finish = (body: Parameters<typeof add.mutate>[0]) =>
    // spec 000 §8: on failure the error shows (a toast) and the modal closes as well
    add.mutate(body, { onSettled: onClose });

  const chooseType = (t: TeamType) => {
    setType(t);
    setValues(teamResponderDefaults(team?.spec, t));
    setTouched(new Set());
    setSubmitted(false);
  };

  const save = () => {
    setSubmitted(true);
    if (!type || Object.keys(errors).length) return;
    const { external_id, ...props } = values;
    const properties: Record<string, string> = { responderType: type };
    for (const f of RESPONDER_FIELDS[type]) properties[f.name] = props[f.name].trim();
    finish({ team_id: teamId, type: 'system', properties, ...(external_id?.trim() ? { external_id: external_id.trim() } : {}) });
  };

  const stepNames: [Step, string][] = person ? [['select', 'Select Responder']] : [['select', 'Select Responder'], ['type', 'Responder Type'], ['details', 'Details']];
  let content;
  let actions;
  if (step === 'select') {
    content = (
      <>
        <Field label="Team">
          {teams.isLoading ? (
            <Spinner size="tiny" label="Loading teams…" />
          ) : !teams.data?.length ? (
            <Text className={s.muted}>No teams yet.</Text>
          ) : (
            <RadioGroup
              className={s.teams}
              aria-label="Team"
              value={teamId}
              onChange={(_, d) => {
                setTeamId(d.value);
                setPerson(null);
                setPersonQuery('');
                setType('');
              }}
            >
              {teams.data.map((t) => (
                <Radio key={t.id} value={t.id} label={t.name} />
              ))}
            </RadioGroup>
          )}
        </Field>
        <Text className={s.or}>or</Text>
        <Field label="Person">
          <Combobox
            aria-label="Person"
            placeholder="Search people"
            value={personQuery}
            selectedOptions={person ? [person.id] : []}
            onChange={(e) => {
              setPersonQuery(e.target.value);
              setPerson(null);
            }}
            onOptionSelect={(_, d) => {
              const p = people.data?.find((x) => x.id === d.optionValue);
              if (!p) return;
              setPerson(p);
              setPersonQuery(p.name);
              setTeamId('');
            }}
          >
            {(people.data ?? []).map((p) => (
              <Option key={p.id} value={p.id} text={p.name}>
                <Avatar size={20} name={p.name} image={p.avatar ? { src: p.avatar } : undefined} color="colorful" aria-hidden /> {p.name}
              </Option>
            ))}
            {people.data && !people.data.length && <Option disabled value="" text="">No options found</Option>}
          </Combobox>
        </Field>
      </>
    );
    actions = person ? (
      <Button appearance="primary" disabledFocusable={add.isPending} onClick={() => finish({ person_id: person.id, type: 'person', properties: { responderType: 'person' } })}>
        {add.isPending ? 'Adding…' : 'Add'}
      </Button>
    ) : (
      <Button appearance="primary" disabled={!teamId} onClick={() => setStep('type')}>Next</Button>
    );
  } else if (step === 'type') {
    content = types.length ? (
      <RadioGroup className={s.types} aria-label="Responder Type" value={type} onChange={(_, d) => chooseType(d.value as TeamType)}>
        {types.map((t) => (
          <Radio key={t} value={t} label={RESPONDER_TYPE_LABELS[t]} />
        ))}
      </RadioGroup>
    ) : (
      <Text className={s.muted}>There were no responders configured for this team</Text>
    );
    actions = (
      <>
        <Button onClick={() => setStep('select')}>Back</Button>
        <Button appearance="primary" disabled={!type} onClick={() => setStep('details')}>Next</Button>
      </>
    );
  } else {
    content = fields.map((f) => {
      const message = f.name !== 'external_id' && (submitted || touched.has(f.name)) ? errors[f.name] : undefined;
      const common = {
        value: values[f.name] ?? '',
        onBlur: () => setTouched((t) => new Set(t).add(f.name)),
      };
      return (
        <Field key={f.name} label={f.label} required={f.name !== 'external_id'} validationMessage={message}>
          {f.multiline ? (
            <Textarea {...common} resize="vertical" onChange={(_, d) => setValues((v) => ({ ...v, [f.name]: d.value }))} />
          ) : (
            <Input {...common} onChange={(_, d) => setValues((v) => ({ ...v, [f.name]: d.value }))} />
          )}
        </Field>
      );
    });
    actions = (
      <>
        <Button onClick={() => setStep('type')}>Back</Button>
        <Button appearance="primary" className={s.nowrap} disabledFocusable={add.isPending} onClick={save}>
          {add.isPending ? 'Saving…' : 'Save Team Responder'}
        </Button>
      </>
    );
  }

  return (
    <AppDialog
      open
      onOpenChange={(o) => !o && !add.isPending && onClose()}
      title={step === 'select' ? 'Select Responder' : step === 'type' ? `Responder Type for ${team?.name ?? 'the team'}` : `${type ? RESPONDER_TYPE_LABELS[type] : ''} responder for ${team?.name ?? 'the team'}`}
      size="medium"
      actions={
        <>
          <Button appearance="secondary" onClick={onClose} disabled={add.isPending}>Cancel</Button>
          {actions}
        </>
      }
    >
      <div className={s.body}>
        <ol className={s.steps} aria-label="Steps">
          {stepNames.map(([id, label], i) => (
            <li key={id} className={id === step ? s.current : undefined} aria-current={id === step ? 'step' : undefined}>
              {i + 1}. {label}
            </li>
          ))}
        </ol>
        {content}
      </div>
    </AppDialog>
  );
}
