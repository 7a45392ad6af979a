import { Avatar, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { Age } from '../../../components/status/age';
import { errorMessage } from '../../../lib/api-client';
import { useIncidentHistory, type HistoryEntry } from '../api';
import { commentText } from '../mentions';

const useStyles = makeStyles({
  list: { listStyle: 'none', margin: 0, padding: 0, display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, maxHeight: '480px', overflowY: 'auto' },
  item: { display: 'flex', gap: tokens.spacingHorizontalS, alignItems: 'flex-start' },
  body: { display: 'flex', flexDirection: 'column', minWidth: 0 },
  what: { overflowWrap: 'anywhere' },
  meta: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200 },
  muted: { color: tokens.colorNeutralForeground3 },
});

const quote = (s: string | null | undefined) => (s ? `“${s.length > 80 ? `${s.slice(0, 80)}…` : s}”` : '');

/** An event of the timeline as a sentence (spec 000 §4 event names). */
export function describeEvent(e: HistoryEntry): string {
  const who = e.created_by?.name ?? 'Someone';
  const responder = e.responder?.team?.name ?? e.responder?.person?.name;
  switch (e.type) {
    case 'incident.created':
      return `${who} created the incident`;
    case 'incident.status_updated':
      return `${who} changed the status${statusPart(e.description)}`;
    case 'incident_status.updated':
      return `${who} updated the incident${e.description ? `: ${lowerFirst(e.description)}` : ''}`;
    case 'responder.created':
      return `${who} added ${responder ?? 'a responder'} as a responder`;
    case 'responder.commented':
      return `${who} commented${e.comment ? ` ${quote(commentText(e.comment.comment))}` : e.description ? ` ${quote(commentText(e.description))}` : ''}`;
    case 'hypothesis.created':
      return `${who} added the hypothesis ${quote(e.hypothesis?.title ?? e.description)}`;
    case 'hypothesis.status_updated': {
      const title = e.hypothesis?.title ?? e.description?.match(/^Hypothesis (.*) changed from/)?.[1];
      return `${who} changed the status of ${title ? quote(title) : 'a hypothesis'}${statusPart(e.description)}`;
    }
    case 'evidence.created':
      return `${who} attached evidence ${quote(e.evidence?.description || e.description)}`;
    case 'evidence.done_definition_added':
      return `${who} added ${quote(e.evidence?.description) || 'evidence'} to the definition of done`;
    default:
      return `${who}: ${e.description ?? e.type ?? 'change'}`;
  }
}

function lowerFirst(s: string) {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

function statusPart(description: string | null | undefined) {
  const m = description?.match(/from (\w+) to (\w+)$/i);
  return m ? ` from ${m[1]} to ${m[2]}` : description ? `: ${description}` : '';
}

/** The Changelog section: incident_histories, newest first. */
export function Changelog({ incidentId }: { incidentId: string }) {
  const s = useStyles();
  const history = useIncidentHistory(incidentId);
  if (history.isLoading) return <Spinner size="tiny" label="Loading changelog…" />;
  if (history.error && !history.data) return <Text role="alert">The changelog could not be loaded: {errorMessage(history.error)}</Text>;
  const entries = history.data ?? [];
  if (!entries.length) return <Text className={s.muted}>No changelog found</Text>;
  return (
    <ol className={s.list} aria-label="Changelog">
      {entries.map((e) => (
        <li key={e.id} className={s.item} data-event={e.type ?? undefined}>
          <Avatar size={24} name={e.created_by?.name ?? '?'} image={e.created_by?.avatar ? { src: e.created_by.avatar } : undefined} color="colorful" aria-hidden />
          <div className={s.body}>
            <Text size={200} className={s.what}>{describeEvent(e)}</Text>
            <span className={s.meta}><Age value={e.created_at} /></span>
          </div>
        </li>
      ))}
    </ol>
  );
}
