import { useResource } from '../api';
import { CanaryDetail } from '../canary/canary-detail';
import type { ResourceDescriptor } from '../descriptors';
import { editableHere, sourceLinkOf } from '../source-link';
import { TeamDetail } from '../team/team-detail';
import { DetailFrame, type DetailTab } from './detail-frame';
import { JobHistoryTable } from './job-history-table';
import { ResourceEditor } from './resource-editor';
import { SourceBanner } from './source-banner';

export interface ResourceDetailProps {
  descriptor: ResourceDescriptor;
  /** Absent on /settings/{table}/new. */
  id?: string;
  /** Write on the descriptor's resource. */
  canWrite: boolean;
  currentUserId: string;
}

/** /settings/{table}/{id} and /new: the descriptor's tabs around its spec editor. */
export function ResourceDetail(props: ResourceDetailProps) {
  const { descriptor: d, id } = props;
  // canaries and teams keep what their pages did: the canary's checks form and CR edits, the team's members
  if (d.table === 'canaries') return <CanaryDetail descriptor={d} id={id} canWrite={props.canWrite} />;
  if (d.table === 'teams' && id) return <TeamDetail descriptor={d} id={id} canWrite={props.canWrite} currentUserId={props.currentUserId} />;
  return <GenericDetail {...props} />;
}

function GenericDetail({ descriptor: d, id, canWrite, currentUserId }: ResourceDetailProps) {
  const row = useResource(d, id);
  if (!id) {
    return (
      <DetailFrame
        descriptor={d}
        state="new"
        tabs={[{ value: 'spec', label: 'Spec', content: <ResourceEditor descriptor={d} readOnly={!canWrite} currentUserId={currentUserId} /> }]}
      />
    );
  }
  const r = row.data;
  const link = r ? sourceLinkOf(r) : null;
  const tabs: DetailTab[] = r
    ? [
        {
          value: 'spec',
          label: 'Spec',
          // keyed by the fetched row: a live change elsewhere (or Update) starts the editor on the row as stored
          content: (
            <ResourceEditor
              key={`${r.id}:${String(r.updated_at)}`}
              descriptor={d}
              row={r}
              readOnly={!canWrite || !editableHere(link!)}
              currentUserId={currentUserId}
            />
          ),
        },
        ...(d.tabs.includes('jobHistory') ? [{ value: 'jobHistory' as const, label: 'Job History', content: <JobHistoryTable resourceId={r.id} /> }] : []),
      ]
    : [];
  return (
    <DetailFrame
      descriptor={d}
      state={{ loading: row.isLoading, error: row.error, name: r ? (r.name ?? r.id) : null }}
      onRefresh={() => void row.refetch()}
      refreshing={row.isFetching}
      header={link && <SourceBanner link={link} singular={d.singular} />}
      tabs={tabs}
    />
  );
}
