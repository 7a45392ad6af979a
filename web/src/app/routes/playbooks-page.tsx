import { PlaybookDetail } from '../../features/playbooks/components/playbook-detail';
import { PlaybookList } from '../../features/playbooks/components/playbook-list';
import { pathTo, paths } from '../paths';
import { useSession } from '../session-context';

const playbookHref = (id: string) => pathTo(paths.playbook, { id });
const historyHref = (id: string) => `${paths.playbookRuns}?playbook=${encodeURIComponent(id)}`;

/** /playbooks: playbooks write creates, edits and deletes; playbook_runs write runs (spec 000 roles). */
export function PlaybooksPage() {
  const session = useSession();
  return (
    <PlaybookList
      canWrite={session.can('playbooks', 'write')}
      canRun={session.can('playbook_runs', 'write')}
      playbookHref={playbookHref}
      historyHref={historyHref}
    />
  );
}

/** /playbooks/{id} */
export function PlaybookPage({ params }: { params: Record<string, string | undefined> }) {
  const session = useSession();
  return (
    <PlaybookDetail
      id={params.id ?? ''}
      canWrite={session.can('playbooks', 'write')}
      canRun={session.can('playbook_runs', 'write')}
      listHref={paths.playbooks}
      historyHref={historyHref}
    />
  );
}
