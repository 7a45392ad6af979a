import { useEffect, useState } from 'react';
import { Badge, Button, makeStyles, Select, Spinner, Text, tokens, Tooltip } from '@fluentui/react-components';
import { Add16Regular, Delete16Regular } from '@fluentui/react-icons';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { PersonAvatar } from '../../../components/status/person-avatars';
import { formatAge, formatDateTime, formatDuration } from '../../../lib/format';
import { useUpdateIncident, type Incident, type PersonRef } from '../api';
import { humanize, INCIDENT_SEVERITIES, INCIDENT_TYPES, RESPONDER_TYPE_LABELS, type ResponderType } from '../model';
import { useDeleteResponder, useResponders, type Responder } from '../work-api';
import { IncidentStatusBadge, IncidentType } from './incident-badges';
import { ResponderWizard } from './responder-wizard';

/** Spec 000 §9: the details panel's priority when the incident has none of its own. */
const DEFAULT_PRIORITY = 'High';

/** What happened to a team responder's notification (the server sends email, records the other types). */
const DELIVERY_COLORS: Record<string, 'success' | 'danger' | 'informative' | 'warning'> = {
  sent: 'success',
  failed: 'danger',
  pending: 'warning',
  sending: 'warning',
  recorded: 'informative',
};

const useStyles = makeStyles({
  grid: { display: 'grid', gridTemplateColumns: '110px minmax(0, 1fr)', rowGap: tokens.spacingVerticalS, columnGap: tokens.spacingHorizontalM, margin: 0, alignItems: 'center' },
  key: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200 },
  value: { margin: 0, minWidth: 0, overflowWrap: 'anywhere' },
  mono: { fontFamily: tokens.fontFamilyMonospace },
  responders: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, listStyle: 'none', margin: 0, padding: 0 },
  responder: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXXS, padding: tokens.spacingVerticalXS, borderRadius: tokens.borderRadiusMedium, backgroundColor: tokens.colorNeutralBackground2 },
  responderHead: { display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: tokens.spacingHorizontalS },
  progress: { display: 'flex', gap: tokens.spacingHorizontalXS, flexWrap: 'wrap', listStyle: 'none', margin: 0, padding: 0 },
  step: { fontSize: tokens.fontSizeBase100, padding: '1px 6px', borderRadius: tokens.borderRadiusCircular, backgroundColor: tokens.colorNeutralBackground4, color: tokens.colorNeutralForeground3 },
  stepDone: { backgroundColor: tokens.colorPaletteGreenBackground2, color: tokens.colorPaletteGreenForeground2 },
  muted: { color: tokens.colorNeutralForeground3 },
});

/** "2h 5m" since `start`, or between start and end; ticks every 30 s while open. */
function useDuration(start: string, end: string | null | undefined): string {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (end) return;
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, [end]);
  const to = end ? new Date(end).getTime() : now;
  const ms = Math.max(0, to - new Date(start).getTime());
  // whole seconds: "1.21s" reads like a latency, not the age of an incident
  return ms < 60_000 ? `${Math.floor(ms / 1000)}s` : formatDuration(ms);
}

/** Spec 000 §4 responder progress: Created, Acknowledged, Resolved, Closed, each with its time once reached. */
function ResponderProgress({ r }: { r: Responder }) {
  const s = useStyles();
  const steps: [string, string | null | undefined][] = [
    ['Created', r.created_at],
    ['Acknowledged', r.acknowledged],
    ['Resolved', r.resolved],
    ['Closed', r.closed],
  ];
  return (
    <ol className={s.progress} aria-label="Progress">
      {steps.map(([label, at]) => (
        <li key={label} className={`${s.step} ${at ? s.stepDone : ''}`} title={at ? `${label} ${formatDateTime(at)}` : `Not ${label.toLowerCase()} yet`}>
          {label}{at ? ` · ${formatAge(at)}` : ''}
        </li>
      ))}
    </ol>
  );
}

function responderName(r: Responder): string {
  return r.team?.name ?? r.person?.name ?? 'Responder';
}

/** Details: id, type, status, priority, commanders, responders, started, duration. */
export function DetailsSection({ incident, canWrite, currentUser }: { incident: Incident; canWrite: boolean; currentUser: PersonRef }) {
  const s = useStyles();
  const responders = useResponders(incident.id);
  const remove = useDeleteResponder(incident.id);
  // PATCH incidents?id=eq with severity or type (spec 000 §7)
  const edit = useUpdateIncident(incident.id);
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Responder | null>(null);
  const duration = useDuration(incident.created_at, incident.closed ?? incident.resolved);
  const commanders = [incident.commander, incident.communicator && incident.communicator.id !== incident.commander?.id ? incident.communicator : null].filter(
    (p): p is PersonRef => !!p,
  );

  return (
    <>
      <dl className={s.grid}>
        <dt className={s.key}>ID</dt>
        <dd className={`${s.value} ${s.mono}`}>{incident.incident_id}</dd>
        <dt className={s.key}>Type</dt>
        <dd className={s.value}>
          {canWrite ? (
            <Select size="small" aria-label="Incident type" value={incident.type} disabled={edit.isPending} onChange={(_, d) => edit.mutate({ type: d.value })}>
              {INCIDENT_TYPES.map((t) => <option key={t} value={t}>{humanize(t)}</option>)}
            </Select>
          ) : (
            <IncidentType type={incident.type} />
          )}
        </dd>
        <dt className={s.key}>Status</dt>
        <dd className={s.value}><IncidentStatusBadge status={incident.status} /></dd>
        <dt className={s.key}>Priority</dt>
        <dd className={s.value}>
          {canWrite ? (
            <Select size="small" aria-label="Incident priority" value={incident.severity} disabled={edit.isPending} onChange={(_, d) => edit.mutate({ severity: d.value })}>
              {INCIDENT_SEVERITIES.map((v) => <option key={v} value={v}>{humanize(v)}</option>)}
            </Select>
          ) : incident.severity ? (
            humanize(incident.severity)
          ) : (
            DEFAULT_PRIORITY
          )}
        </dd>
        <dt className={s.key}>Commanders</dt>
        <dd className={s.value}>
          {commanders.length ? commanders.map((p) => <PersonAvatar key={p.id} person={p} size={20} showName />) : <Text className={s.muted}>None</Text>}
        </dd>
        <dt className={s.key}>Started</dt>
        <dd className={s.value}>{formatDateTime(incident.created_at)}</dd>
        <dt className={s.key}>Duration</dt>
        <dd className={s.value}>{duration}</dd>
        <dt className={s.key}>Responders</dt>
        <dd className={s.value}>
          {canWrite && (
            <Button size="small" icon={<Add16Regular />} onClick={() => setAdding(true)}>Add responder</Button>
          )}
        </dd>
      </dl>
      <div style={{ marginTop: tokens.spacingVerticalS }}>
        {responders.isLoading ? (
          <Spinner size="tiny" label="Loading responders…" />
        ) : !responders.data?.length ? (
          <Text className={s.muted} size={200}>No responders yet.</Text>
        ) : (
          <ul className={s.responders} aria-label="Responders">
            {responders.data.map((r) => (
              <li key={r.id} className={s.responder}>
                <div className={s.responderHead}>
                  <PersonAvatar person={{ id: r.id, name: responderName(r), avatar: r.person?.avatar }} size={20} showName />
                  <span>
                    <Text size={200} className={s.muted}>
                      {RESPONDER_TYPE_LABELS[(r.properties?.responderType as ResponderType) ?? 'person'] ?? humanize(String(r.properties?.responderType ?? r.type))}
                    </Text>
                    {r.delivery_status && r.delivery_status !== 'none' && (
                      <Tooltip content={r.delivery_error ?? `Notification ${r.delivery_status}`} relationship="description">
                        <Badge size="small" appearance="tint" shape="rounded" color={DELIVERY_COLORS[r.delivery_status] ?? 'informative'} style={{ marginInlineStart: 6 }}>
                          {r.delivery_status}
                        </Badge>
                      </Tooltip>
                    )}
                    {canWrite && (
                      <Tooltip content="Remove responder" relationship="label">
                        <Button appearance="subtle" size="small" icon={<Delete16Regular />} aria-label={`Remove responder ${responderName(r)}`} onClick={() => setDeleting(r)} />
                      </Tooltip>
                    )}
                  </span>
                </div>
                <ResponderProgress r={r} />
              </li>
            ))}
          </ul>
        )}
      </div>
      {adding && <ResponderWizard incidentId={incident.id} currentUser={currentUser} onClose={() => setAdding(false)} />}
      {deleting && (
        <ConfirmDialog
          open
          title="Remove responder"
          description={`Remove ${responderName(deleting)} from this incident's responders?`}
          confirmLabel="Remove"
          danger
          busy={remove.isPending}
          onConfirm={() => remove.mutate(deleting.id, { onSettled: () => setDeleting(null) })}
          onCancel={() => setDeleting(null)}
        />
      )}
    </>
  );
}
