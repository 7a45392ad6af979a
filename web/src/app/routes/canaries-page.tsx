import { CanariesSettings } from '../../features/canaries/components/canaries-settings';
import { CanaryDetail } from '../../features/canaries/components/canary-detail';
import { pathTo, paths } from '../paths';
import { useSession } from '../session-context';

const listHref = pathTo(paths.settingsTable, { table: 'canaries' });
const canaryHref = (id: string) => pathTo(paths.settingsTableItem, { table: 'canaries', id });
const newHref = canaryHref('new');

/** /settings/canaries */
export function CanariesPage() {
  const session = useSession();
  return <CanariesSettings canWrite={session.can('canaries', 'write')} canaryHref={canaryHref} newHref={newHref} />;
}

/** /settings/canaries/{id}, and /settings/canaries/new (write on canaries; the route table checks it). */
export function CanaryPage({ params }: { params: Record<string, string | undefined> }) {
  const session = useSession();
  const id = params.id === 'new' ? undefined : params.id;
  return <CanaryDetail id={id} canWrite={session.can('canaries', 'write')} listHref={listHref} canaryHref={canaryHref} />;
}
