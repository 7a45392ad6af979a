import { useState } from 'react';
import { DetailFrame } from '../components/detail-frame';
import { JobHistoryTable } from '../components/job-history-table';
import { itemHref, listHref, type ResourceDescriptor } from '../descriptors';
import { useCanary } from './api';
import { CanaryEditor } from './canary-editor';

export interface CanaryDetailProps {
  descriptor: ResourceDescriptor;
  /** Absent on /settings/canaries/new. */
  id?: string;
  canWrite: boolean;
}

/**
 * /settings/canaries/{id} and /new in the generic frame. A canary's spec tab is its own editor: its Form tab edits
 * HTTP and TCP checks, and `GET /api/canary/:id` carries the custom resource it comes from (edited with its
 * resourceVersion, so a change made meanwhile in the cluster is a conflict).
 */
export function CanaryDetail({ descriptor: d, id, canWrite }: CanaryDetailProps) {
  const canary = useCanary(id);
  // bumped by the editor's Reload (after a conflict): the editor starts again from the canary as it is now
  const [edition, setEdition] = useState(0);
  const hrefs = { listHref: listHref(d), canaryHref: (cid: string) => itemHref(d, cid) };
  if (!id) {
    return <DetailFrame descriptor={d} state="new" tabs={[{ value: 'spec', label: 'Spec', content: <CanaryEditor canWrite={canWrite} {...hrefs} /> }]} />;
  }
  const c = canary.data;
  return (
    <DetailFrame
      descriptor={d}
      state={{ loading: canary.isLoading, error: canary.error, name: c?.name }}
      onRefresh={() => void canary.refetch()}
      refreshing={canary.isFetching}
      tabs={
        c
          ? [
              {
                value: 'spec',
                label: 'Spec',
                // keyed by canary: another canary (or a reload) starts the editor afresh
                content: (
                  <CanaryEditor
                    key={`${c.id}:${edition}`}
                    canary={c}
                    canWrite={canWrite}
                    {...hrefs}
                    onReload={() => void canary.refetch().then(() => setEdition((n) => n + 1))}
                  />
                ),
              },
              { value: 'jobHistory', label: 'Job History', content: <JobHistoryTable resourceId={c.id} /> },
            ]
          : []
      }
    />
  );
}
