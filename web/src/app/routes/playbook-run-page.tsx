import { RunDetail } from '../../features/playbooks/runs/components/run-detail';
import { pathTo, paths } from '../paths';
import { useSession } from '../session-context';

const runHref = (id: string) => pathTo(paths.playbookRun, { id });
const playbookHref = (id: string) => pathTo(paths.playbook, { id });

/** /playbooks/runs/{id} */
export function PlaybookRunPage({ params }: { params: Record<string, string | undefined> }) {
  const session = useSession();
  return (
    <RunDetail
      // the route's params.id changes when a retry or a child run link is followed: a fresh detail for each run
      key={params.id}
      id={params.id ?? ''}
      // cancel, re-run and retry need playbook_runs write; approving is checked against the run's approvers
      canWrite={session.can('playbook_runs', 'write')}
      user={{ id: session.user.id, email: session.user.email }}
      runHref={runHref}
      playbookHref={playbookHref}
    />
  );
}
