import { useState } from 'react';
import { Button, Checkbox, Dropdown, makeStyles, Option, Spinner, Text, tokens } from '@fluentui/react-components';
import { CheckmarkCircle20Regular, ArrowCounterclockwise20Regular } from '@fluentui/react-icons';
import { AppDialog } from '../../../components/app-dialog';
import { useUpdateIncidentStatus, type Evidence, type Incident } from '../api';
import { allowedTargets, asksForDefinitionOfDone, humanize } from '../model';
import { useUpdateEvidences } from '../work-api';
import { evidenceTitle } from './evidence-item';

const useStyles = makeStyles({
  controls: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS },
  dropdown: { minWidth: '160px' },
  list: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS, maxHeight: '50vh', overflowY: 'auto' },
  hint: { color: tokens.colorNeutralForeground3 },
  error: { color: tokens.colorPaletteRedForeground1 },
});

/** The header's status dropdown (allowed targets only) and the Close / Reopen toggle. */
export function StatusControls({ incident }: { incident: Incident }) {
  const s = useStyles();
  const update = useUpdateIncidentStatus(incident.id);
  const [asking, setAsking] = useState<string | null>(null);
  const closed = incident.status === 'closed';

  const choose = (to: string) => {
    if (to === incident.status) return;
    if (asksForDefinitionOfDone(to)) setAsking(to);
    else update.mutate(to);
  };

  return (
    <span className={s.controls}>
      <Dropdown
        className={s.dropdown}
        aria-label="Incident status"
        value={humanize(incident.status)}
        selectedOptions={[incident.status]}
        disabled={update.isPending}
        onOptionSelect={(_, d) => d.optionValue && choose(d.optionValue)}
      >
        {allowedTargets(incident.status).map((st) => (
          <Option key={st} value={st}>{humanize(st)}</Option>
        ))}
      </Dropdown>
      <Button
        icon={update.isPending ? <Spinner size="tiny" /> : closed ? <ArrowCounterclockwise20Regular /> : <CheckmarkCircle20Regular />}
        disabled={update.isPending}
        onClick={() => update.mutate(closed ? 'open' : 'closed')}
      >
        {closed ? 'Reopen' : 'Close'}
      </Button>
      {asking && (
        <ContributingFactorsDialog
          incident={incident}
          onSkip={() => {
            update.mutate(asking);
            setAsking(null);
          }}
          onSubmitted={() => {
            update.mutate(asking);
            setAsking(null);
          }}
          onCancel={() => setAsking(null)}
        />
      )}
    </span>
  );
}

/** Every evidence of the incident, with the hypothesis it sits under. */
export function incidentEvidences(incident: Incident): Evidence[] {
  return incident.hypotheses.flatMap((h) => h.evidences);
}

/**
 * "Add contributing factors to definition of done": before mitigated or resolved. Submit marks the chosen
 * evidences (at least one) then changes the status; Skip changes it without marking; Cancel does nothing.
 */
function ContributingFactorsDialog({ incident, onSkip, onSubmitted, onCancel }: { incident: Incident; onSkip: () => void; onSubmitted: () => void; onCancel: () => void }) {
  const s = useStyles();
  const candidates = incidentEvidences(incident).filter((e) => !e.definition_of_done);
  const [picked, setPicked] = useState<string[]>([]);
  const [tried, setTried] = useState(false);
  const mark = useUpdateEvidences(incident.id, 'Marking evidence as part of definition of done failed');

  const submit = () => {
    setTried(true);
    if (!picked.length) return;
    mark.mutate({ ids: picked, patch: { definition_of_done: true } }, { onSuccess: onSubmitted });
  };

  return (
    <AppDialog
      open
      onOpenChange={(o) => !o && !mark.isPending && onCancel()}
      title="Add contributing factors to definition of done"
      size="medium"
      actions={
        <>
          <Button appearance="secondary" onClick={onCancel} disabled={mark.isPending}>Cancel</Button>
          <Button appearance="secondary" onClick={onSkip} disabled={mark.isPending}>Skip</Button>
          <Button appearance="primary" onClick={submit} disabledFocusable={mark.isPending} icon={mark.isPending ? <Spinner size="tiny" /> : undefined}>
            Submit
          </Button>
        </>
      }
    >
      <div className={s.list} role="group" aria-label="Evidences">
        {!incidentEvidences(incident).length ? (
          <Text className={s.hint}>There are no evidences provided for this incident</Text>
        ) : !candidates.length ? (
          <Text className={s.hint}>There are no evidences which are not part of definition of done</Text>
        ) : (
          candidates.map((e) => (
            <Checkbox
              key={e.id}
              label={evidenceTitle(e)}
              checked={picked.includes(e.id)}
              onChange={(_, d) => setPicked((p) => (d.checked ? [...p, e.id] : p.filter((x) => x !== e.id)))}
            />
          ))
        )}
        {tried && !picked.length && (
          <Text role="alert" className={s.error}>Please select atleast one evidence</Text>
        )}
      </div>
    </AppDialog>
  );
}
