import { RunsList } from '../../features/playbooks/runs/components/runs-list';
import { pathTo, paths } from '../paths';

const runHref = (id: string) => pathTo(paths.playbookRun, { id });

/** /playbooks/runs */
export function PlaybookRunsPage() {
  return <RunsList runHref={runHref} />;
}
