import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { Button } from '@fluentui/react-components';
import { Add20Regular } from '@fluentui/react-icons';
import { Page } from '../../../components/page';
import { useResources } from '../api';
import { itemHref, type ResourceDescriptor } from '../descriptors';
import { TeamDialog } from '../team/team-dialog';
import { ResourceTable } from './resource-table';

export interface ResourceListProps {
  descriptor: ResourceDescriptor;
  /** Write on the descriptor's resource (the server's rule, mirrored): Add. */
  canWrite: boolean;
  currentUserId: string;
}

/** /settings/{table}: the table's live rows (at most 100); a row opens its page. */
export function ResourceList({ descriptor: d, canWrite, currentUserId }: ResourceListProps) {
  const rows = useResources(d);
  const [, navigate] = useLocation();
  const [adding, setAdding] = useState(false);
  // teams are named in a dialog, then opened to add members; the other kinds open their editor
  const dialog = d.table === 'teams';
  const addLabel = `Add ${d.singular}`;
  return (
    <Page
      title={d.title}
      onRefresh={() => void rows.refetch()}
      refreshing={rows.isFetching}
      extra={
        canWrite &&
        !d.rowHref &&
        (dialog ? (
          <Button appearance="primary" icon={<Add20Regular />} onClick={() => setAdding(true)}>
            {addLabel}
          </Button>
        ) : (
          <Link href={itemHref(d, 'new')} asChild>
            <Button as="a" appearance="primary" icon={<Add20Regular />}>
              {addLabel}
            </Button>
          </Link>
        ))
      }
    >
      <ResourceTable descriptor={d} rows={rows.data} loading={rows.isLoading} error={rows.error} onOpen={(r) => navigate(itemHref(d, r.id))} />
      {canWrite && dialog && (
        <TeamDialog
          open={adding}
          onOpenChange={setAdding}
          existing={(rows.data ?? []).map((r) => ({ id: r.id, name: r.name ?? '' }))}
          currentUserId={currentUserId}
          onCreated={(id) => navigate(itemHref(d, id))}
        />
      )}
    </Page>
  );
}
