import { lazy, Suspense, useMemo, useState } from 'react';
import { Badge, Button, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { Delete20Regular, Edit20Regular, ErrorCircle24Regular, History20Regular, Play20Regular } from '@fluentui/react-icons';
import { Link as RouterLink, useLocation } from 'wouter';
import { CodeViewer } from '../../../components/code/code-viewer';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { PlaybookRunsTable } from '../../../components/playbooks/playbook-runs-table';
import { errorMessage } from '../../../lib/api-client';
import { usePlaybook } from '../api';
import { isEditable, sourceText, specToYaml } from '../model';
import { DeletePlaybookDialog } from './delete-playbook-dialog';
import { PlaybookIcon } from './playbook-icon';

const PlaybookEditorDialog = lazy(() => import('./playbook-editor-dialog').then((m) => ({ default: m.PlaybookEditorDialog })));
const RunPlaybookDialog = lazy(() =>
  import('../../../components/playbooks/run-playbook-dialog').then((m) => ({ default: m.RunPlaybookDialog })),
);

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL },
  head: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalM, flexWrap: 'wrap' },
  actions: { display: 'flex', gap: tokens.spacingHorizontalS, flexWrap: 'wrap' },
  muted: { color: tokens.colorNeutralForeground2 },
  heading: { margin: 0, fontSize: tokens.fontSizeBase400, fontWeight: tokens.fontWeightSemibold },
});

export interface PlaybookDetailProps {
  id: string;
  canWrite: boolean;
  canRun: boolean;
  listHref: string;
  historyHref: (id: string) => string;
}

/** /playbooks/{id}: the spec (read-only YAML), Run, Edit, and its runs. */
export function PlaybookDetail({ id, canWrite, canRun, listHref, historyHref }: PlaybookDetailProps) {
  const s = useStyles();
  const playbook = usePlaybook(id);
  const [, navigate] = useLocation();
  const [open, setOpen] = useState<'run' | 'edit' | 'delete' | null>(null);
  const p = playbook.data;
  const yaml = useMemo(() => specToYaml(p?.spec), [p?.spec]);
  const title = p ? p.title || p.name : 'Playbook';

  let content;
  if (playbook.isLoading) content = <Spinner label="Loading playbook…" />;
  else if (playbook.isError) {
    content = <EmptyState role="alert" icon={<ErrorCircle24Regular />} title="This playbook could not be loaded" description={errorMessage(playbook.error)} />;
  } else if (!p) {
    content = (
      <EmptyState
        icon={<ErrorCircle24Regular />}
        title="Playbook not found"
        description="It may have been deleted."
        actions={<RouterLink href={listHref} asChild><Button as="a">All playbooks</Button></RouterLink>}
      />
    );
  } else {
    const editable = isEditable(p);
    content = (
      <div className={s.body}>
        <div className={s.head}>
          <PlaybookIcon icon={p.icon} />
          {p.category && <Badge appearance="tint">{p.category}</Badge>}
          {!editable && <Badge appearance="outline">{sourceText(p)}</Badge>}
        </div>
        {p.description && <Text className={s.muted}>{p.description}</Text>}
        <div className={s.actions}>
          {canRun && <Button appearance="primary" icon={<Play20Regular />} onClick={() => setOpen('run')}>Run</Button>}
          {canWrite && editable && <Button icon={<Edit20Regular />} onClick={() => setOpen('edit')}>Edit</Button>}
          {canWrite && editable && <Button icon={<Delete20Regular />} onClick={() => setOpen('delete')}>Delete</Button>}
          <RouterLink href={historyHref(p.id)} asChild><Button as="a" icon={<History20Regular />}>History</Button></RouterLink>
        </div>
        <section aria-labelledby="playbook-spec">
          <Text as="h2" id="playbook-spec" className={s.heading}>Spec</Text>
          <CodeViewer code={yaml} language="yaml" selectionParam={false} label={`Spec of ${title}`} maxHeight="50vh" />
        </section>
        <section aria-labelledby="playbook-runs">
          <Text as="h2" id="playbook-runs" className={s.heading}>Runs</Text>
          <PlaybookRunsTable filter={{ playbook_id: p.id }} label={`Runs of ${title}`} emptyMessage="This playbook has not run yet" />
        </section>
        <Suspense fallback={null}>
          {open === 'run' && <RunPlaybookDialog open playbook={p} onClose={() => setOpen(null)} />}
          {open === 'edit' && <PlaybookEditorDialog playbook={p} onClose={() => setOpen(null)} />}
        </Suspense>
        {open === 'delete' && <DeletePlaybookDialog playbook={p} onClose={() => setOpen(null)} onDeleted={() => navigate(listHref)} />}
      </div>
    );
  }
  return (
    <Page title={title} onRefresh={() => void playbook.refetch()} refreshing={playbook.isFetching}>
      {content}
    </Page>
  );
}
