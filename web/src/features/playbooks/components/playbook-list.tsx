import { lazy, Suspense, useMemo, useState } from 'react';
import { Button, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { Add20Regular, BookQuestionMark24Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { usePlaybooks } from '../api';
import { groupByCategory, type PlaybookItem } from '../model';
import { DeletePlaybookDialog } from './delete-playbook-dialog';
import { PlaybookCard } from './playbook-card';

// the editor (Monaco) and the run dialog load with the click that opens them
const PlaybookEditorDialog = lazy(() => import('./playbook-editor-dialog').then((m) => ({ default: m.PlaybookEditorDialog })));
const RunPlaybookDialog = lazy(() =>
  import('../../../components/playbooks/run-playbook-dialog').then((m) => ({ default: m.RunPlaybookDialog })),
);

const useStyles = makeStyles({
  group: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, marginBottom: tokens.spacingVerticalXXL },
  heading: { margin: 0, fontSize: tokens.fontSizeBase400, fontWeight: tokens.fontWeightSemibold },
  grid: { display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(280px, 1fr))', gap: tokens.spacingHorizontalL },
});

export interface PlaybookListProps {
  canWrite: boolean;
  canRun: boolean;
  playbookHref: (id: string) => string;
  historyHref: (id: string) => string;
}

type Open = { kind: 'create' } | { kind: 'edit' | 'delete' | 'run'; playbook: PlaybookItem } | null;

/** /playbooks (spec 001 "Playbook screens"): cards grouped by category ('Other' default). */
export function PlaybookList({ canWrite, canRun, playbookHref, historyHref }: PlaybookListProps) {
  const s = useStyles();
  const playbooks = usePlaybooks();
  const groups = useMemo(() => groupByCategory(playbooks.data ?? []), [playbooks.data]);
  const [open, setOpen] = useState<Open>(null);
  const close = () => setOpen(null);
  const create = canWrite ? (
    <Button appearance="primary" icon={<Add20Regular />} onClick={() => setOpen({ kind: 'create' })}>
      Create
    </Button>
  ) : undefined;

  let content;
  if (playbooks.isLoading) content = <Spinner label="Loading playbooks…" />;
  else if (playbooks.isError) {
    content = <EmptyState role="alert" icon={<ErrorCircle24Regular />} title="The playbooks could not be loaded" description={errorMessage(playbooks.error)} />;
  } else if (!groups.length) {
    content = (
      <EmptyState
        icon={<BookQuestionMark24Regular />}
        title="No playbooks yet"
        description={canWrite ? 'Create one, or apply a Playbook resource with kubectl.' : 'Playbooks appear here once someone creates one.'}
        actions={create}
      />
    );
  } else {
    content = groups.map((g) => (
      <section key={g.category} className={s.group} aria-labelledby={`category-${g.category}`}>
        <Text as="h2" id={`category-${g.category}`} className={s.heading}>
          {g.category} <Text size={200}>({g.items.length})</Text>
        </Text>
        <div role="list" className={s.grid}>
          {g.items.map((p) => (
            <PlaybookCard
              key={p.id}
              playbook={p}
              href={playbookHref(p.id)}
              historyHref={historyHref(p.id)}
              canRun={canRun}
              canWrite={canWrite}
              onRun={() => setOpen({ kind: 'run', playbook: p })}
              onEdit={() => setOpen({ kind: 'edit', playbook: p })}
              onDelete={() => setOpen({ kind: 'delete', playbook: p })}
            />
          ))}
        </div>
      </section>
    ));
  }

  return (
    <Page title="Playbooks" extra={create} onRefresh={() => void playbooks.refetch()} refreshing={playbooks.isFetching}>
      {content}
      <Suspense fallback={null}>
        {open?.kind === 'create' && <PlaybookEditorDialog onClose={close} />}
        {open?.kind === 'edit' && <PlaybookEditorDialog playbook={open.playbook} onClose={close} />}
        {open?.kind === 'run' && <RunPlaybookDialog open playbook={open.playbook} onClose={close} />}
      </Suspense>
      {open?.kind === 'delete' && <DeletePlaybookDialog playbook={open.playbook} onClose={close} />}
    </Page>
  );
}
