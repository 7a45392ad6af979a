import { useState } from 'react';
import { Button, Checkbox, Field, makeStyles, Radio, RadioGroup, Spinner, Text, Textarea, tokens, Tooltip } from '@fluentui/react-components';
import { Add16Regular, CheckmarkCircle16Filled, Circle16Regular, Dismiss16Regular } from '@fluentui/react-icons';
import { AppDialog } from '../../../components/app-dialog';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import type { Evidence, Incident, PersonRef } from '../api';
import { useCreateEvidence, useUpdateEvidences } from '../work-api';
import { EvidenceItem, evidenceTitle } from './evidence-item';
import { incidentEvidences } from './status-controls';

const useStyles = makeStyles({
  list: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, listStyle: 'none', margin: `0 0 ${tokens.spacingVerticalS}`, padding: 0 },
  item: { display: 'flex', gap: tokens.spacingHorizontalXS, alignItems: 'flex-start', justifyContent: 'space-between' },
  done: { color: tokens.colorPaletteGreenForeground1 },
  pending: { color: tokens.colorNeutralForeground3 },
  muted: { color: tokens.colorNeutralForeground3 },
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  choices: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS, maxHeight: '45vh', overflowY: 'auto' },
});

/** The Definition of done section: its items, their done flags, removal, and the Add flow. */
export function DefinitionOfDone({ incident, canWrite, currentUser }: { incident: Incident; canWrite: boolean; currentUser: PersonRef }) {
  const s = useStyles();
  const items = incidentEvidences(incident).filter((e) => e.definition_of_done);
  const toggle = useUpdateEvidences(incident.id, 'Marking evidence as part of definition of done failed');
  const unmark = useUpdateEvidences(incident.id, 'Removing evidence from definition of done failed');
  const [adding, setAdding] = useState(false);
  const [confirmDone, setConfirmDone] = useState<Evidence | null>(null);
  const [removing, setRemoving] = useState<Evidence | null>(null);

  return (
    <>
      {items.length ? (
        <ul className={s.list} aria-label="Definition of done">
          {items.map((e) => (
            <li key={e.id} className={s.item}>
              {e.type === 'comment' && canWrite ? (
                <Checkbox
                  checked={!!e.done}
                  aria-label={e.done ? `Mark as not resolved: ${evidenceTitle(e)}` : `Mark as resolved: ${evidenceTitle(e)}`}
                  onChange={() => setConfirmDone(e)}
                />
              ) : e.done ? (
                <CheckmarkCircle16Filled className={s.done} aria-label="Done" style={{ marginTop: 4 }} />
              ) : (
                <Circle16Regular className={s.pending} aria-label="Not done" style={{ marginTop: 4 }} />
              )}
              <div style={{ flex: 1, minWidth: 0 }}>
                <EvidenceItem evidence={e} compact={e.type === 'comment'} />
              </div>
              {canWrite && (
                <Tooltip content="Remove from definition of done" relationship="label">
                  <Button appearance="subtle" size="small" icon={<Dismiss16Regular />} aria-label={`Remove ${evidenceTitle(e)} from definition of done`} onClick={() => setRemoving(e)} />
                </Tooltip>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <Text as="p" className={s.muted} size={200}>Nothing in the definition of done yet.</Text>
      )}
      {canWrite && (
        <Button size="small" icon={<Add16Regular />} onClick={() => setAdding(true)}>Add definition of done</Button>
      )}
      {adding && <AddDefinitionOfDoneDialog incident={incident} currentUser={currentUser} onClose={() => setAdding(false)} />}
      {confirmDone && (
        <ConfirmDialog
          open
          title={confirmDone.done ? 'Mark as not resolved' : 'Mark as resolved'}
          description={`${confirmDone.done ? 'Mark as not resolved' : 'Mark as resolved'}: “${evidenceTitle(confirmDone)}”?`}
          confirmLabel={confirmDone.done ? 'Mark as not resolved' : 'Mark as resolved'}
          busy={toggle.isPending}
          onConfirm={() => toggle.mutate({ ids: [confirmDone.id], patch: { done: !confirmDone.done } }, { onSettled: () => setConfirmDone(null) })}
          onCancel={() => setConfirmDone(null)}
        />
      )}
      {removing && (
        <ConfirmDialog
          open
          title="Remove from definition of done"
          description={`Remove “${evidenceTitle(removing)}” from the definition of done? The evidence stays on its hypothesis.`}
          confirmLabel="Remove"
          danger
          busy={unmark.isPending}
          onConfirm={() => unmark.mutate({ ids: [removing.id], patch: { definition_of_done: false } }, { onSettled: () => setRemoving(null) })}
          onCancel={() => setRemoving(null)}
        />
      )}
    </>
  );
}

type Mode = 'automatic' | 'manual';

/**
 * Add definition of done (spec 000 §4): Automatic picks evidence (comment evidence cannot be picked; Next waits for
 * one) and then a script; Manual writes a text item (a comment evidence on the root hypothesis).
 */
function AddDefinitionOfDoneDialog({ incident, currentUser, onClose }: { incident: Incident; currentUser: PersonRef; onClose: () => void }) {
  const s = useStyles();
  const [mode, setMode] = useState<Mode>('automatic');
  const [step, setStep] = useState<'pick' | 'script'>('pick');
  const [picked, setPicked] = useState<string[]>([]);
  const [script, setScript] = useState('');
  const [text, setText] = useState('');
  const [tried, setTried] = useState(false);
  const mark = useUpdateEvidences(incident.id, 'Marking evidence as part of definition of done failed');
  const create = useCreateEvidence(incident.id, currentUser.id);
  const all = incidentEvidences(incident);
  const candidates = all.filter((e) => !e.definition_of_done);
  const root = incident.hypotheses.find((h) => h.type === 'root') ?? incident.hypotheses[0];
  const busy = mark.isPending || create.isPending;

  const add = () => {
    setTried(true);
    if (mode === 'automatic') {
      if (!picked.length) return;
      mark.mutate({ ids: picked, patch: { definition_of_done: true, ...(script.trim() ? { script: script.trim() } : {}) } }, { onSuccess: onClose });
      return;
    }
    if (!text.trim() || !root) return;
    create.mutate(
      { hypothesis_id: root.id, type: 'comment', description: text.trim(), definition_of_done: true, done: false, evidence: { comment: text.trim() } },
      { onSuccess: onClose, onError: () => undefined },
    );
  };

  let actions;
  if (mode === 'automatic' && step === 'pick') {
    actions = <Button appearance="primary" disabled={!picked.length} onClick={() => setStep('script')}>Next</Button>;
  } else {
    actions = (
      <>
        {mode === 'automatic' && <Button onClick={() => setStep('pick')}>Back</Button>}
        <Button appearance="primary" disabledFocusable={busy} disabled={mode === 'manual' && !text.trim()} icon={busy ? <Spinner size="tiny" /> : undefined} onClick={add}>
          Add
        </Button>
      </>
    );
  }

  return (
    <AppDialog
      open
      onOpenChange={(o) => !o && !busy && onClose()}
      title="Add definition of done"
      size="medium"
      actions={
        <>
          <Button appearance="secondary" onClick={onClose} disabled={busy}>Cancel</Button>
          {actions}
        </>
      }
    >
      <div className={s.body}>
        <RadioGroup layout="horizontal" aria-label="How it is checked" value={mode} onChange={(_, d) => { setMode(d.value as Mode); setStep('pick'); }}>
          <Radio value="automatic" label="Automatic" />
          <Radio value="manual" label="Manual" />
        </RadioGroup>
        {mode === 'manual' ? (
          <Field label="Definition of done" required validationMessage={tried && !text.trim() ? 'This field is required' : undefined}>
            <Textarea value={text} onChange={(_, d) => setText(d.value)} placeholder="e.g. Error rate back under 1% for an hour" resize="vertical" />
          </Field>
        ) : step === 'pick' ? (
          <div className={s.choices} role="group" aria-label="Evidences">
            {!all.length ? (
              <Text className={s.muted}>There are no evidences provided for this incident</Text>
            ) : !candidates.length ? (
              <Text className={s.muted}>There are no evidences which are not part of definition of done</Text>
            ) : (
              candidates.map((e) => (
                <Checkbox
                  key={e.id}
                  label={evidenceTitle(e)}
                  disabled={e.type === 'comment'}
                  checked={picked.includes(e.id)}
                  onChange={(_, d) => setPicked((p) => (d.checked ? [...p, e.id] : p.filter((x) => x !== e.id)))}
                />
              ))
            )}
          </div>
        ) : (
          <Field label="Script" hint="Checks whether this is done; leave empty to check it by hand.">
            <Textarea value={script} onChange={(_, d) => setScript(d.value)} resize="vertical" style={{ fontFamily: tokens.fontFamilyMonospace }} placeholder="e.g. check.status == 'healthy'" />
          </Field>
        )}
      </div>
    </AppDialog>
  );
}
