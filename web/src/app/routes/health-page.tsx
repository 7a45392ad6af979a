import { HealthDashboard } from '../../features/health/components/health-dashboard';
import { useSession } from '../session-context';

/** Spec 000 §6: Run Now is for these roles (responders and commanders have no write on canaries). */
const RUN_NOW_ROLES = new Set(['admin', 'editor', 'responder', 'commander']);

/** /health */
export function HealthPage() {
  const session = useSession();
  return (
    <HealthDashboard
      canRunNow={session.roles.some((r) => RUN_NOW_ROLES.has(r))}
      canEditCanaries={session.can('canaries', 'write')}
    />
  );
}
