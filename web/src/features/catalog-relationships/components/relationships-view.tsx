import { lazy, Suspense, useCallback, useMemo, useState } from 'react';
import { Spinner, Text } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { EmptyState } from '../../../components/empty-state';
import { errorMessage } from '../../../lib/api-client';
import { toast } from '../../../lib/toast';
import { useUrlState } from '../../../lib/url-state';
import { useManualLinks, useRelatedConfigs, useUnlink, type ManualLink, type RelatedConfig } from '../api';
import { useGraphPrefs } from '../preferences';
import { TOGGLE_DEFAULTS, type RelationToggles } from '../toggles';
import { RelationshipToggles } from './relationship-toggles';
import { RelationshipsTable } from './relationships-table';

const RelationshipsGraph = lazy(() => import('./relationships-graph').then((m) => ({ default: m.RelationshipsGraph })));

const NO_ROWS: RelatedConfig[] = [];
/** The URL's form of the toggles (the reference's parameters): `outgoing`, `incoming`, `relation=soft|hard`. */
const URL_DEFAULTS = { outgoing: true, incoming: false, relation: 'hard', showDeleted: false };

export interface RelationshipsViewProps {
  configId: string;
  /** Hand-made links can be removed (admin and editor); the server refuses others anyway. */
  canWrite?: boolean;
}

/** An item's related configs: the toggles, a table or a graph, and unlinking hand-made links after a confirmation. */
export function RelationshipsView({ configId, canWrite = true }: RelationshipsViewProps) {
  const [url, setUrl] = useUrlState(URL_DEFAULTS);
  const toggles: RelationToggles = { outgoing: url.outgoing, incoming: url.incoming, soft: url.relation === 'soft' };
  const related = useRelatedConfigs(configId, toggles, url.showDeleted);
  const manual = useManualLinks(configId);
  const unlink = useUnlink();
  const [prefs] = useGraphPrefs();
  const [pending, setPending] = useState<{ link: ManualLink; name: string } | null>(null);
  // the tab's own item is the first row (depth 0): the table lists what it relates to
  const rows = useMemo(() => (related.data ?? NO_ROWS).filter((r) => r.id !== configId), [related.data, configId]);

  const manualLinkOf = useCallback(
    (row: RelatedConfig) =>
      manual.data?.find((l) => (l.config_id === configId && l.related_id === row.id) || (l.related_id === configId && l.config_id === row.id)) ?? null,
    [manual.data, configId],
  );
  const onUnlink = useCallback((link: ManualLink, row: RelatedConfig) => setPending({ link, name: row.name ?? row.id }), []);
  const confirm = () => {
    if (!pending) return;
    unlink.mutate(pending.link, {
      onSuccess: () => {
        toast.success('Deleted config link successfully');
        setPending(null);
      },
      onError: (err) => {
        toast.error(errorMessage(err));
        setPending(null);
      },
    });
  };

  return (
    <>
      <RelationshipToggles
        value={toggles}
        onChange={(t) => setUrl({ outgoing: t.outgoing, incoming: t.incoming, relation: t.soft ? 'soft' : 'hard' })}
        showDeleted={url.showDeleted}
        onShowDeleted={(showDeleted) => setUrl({ showDeleted })}
      />
      {related.error && !related.data ? (
        <EmptyState icon={<ErrorCircle24Regular />} title="Related configs could not be loaded" description={errorMessage(related.error)} role="alert" />
      ) : prefs.view === 'graph' ? (
        !related.data ? (
          <Spinner size="small" label="Loading related configs…" />
        ) : (
          <Suspense fallback={<Spinner size="small" label="Loading graph…" />}>
            <RelationshipsGraph rows={related.data} rootId={configId} direction={prefs.direction} edgeStyle={prefs.edges} />
          </Suspense>
        )
      ) : (
        <RelationshipsTable rows={rows} loading={related.isFetching} manualLinkOf={manualLinkOf} onUnlink={canWrite ? onUnlink : undefined} />
      )}
      <ConfirmDialog
        open={!!pending}
        title="Delete config link"
        description={<Text>Are you sure you want to delete this config link{pending ? ` to ${pending.name}` : ''}?</Text>}
        confirmLabel="Delete"
        danger
        busy={unlink.isPending}
        onConfirm={confirm}
        onCancel={() => setPending(null)}
      />
    </>
  );
}
