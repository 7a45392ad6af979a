import { lazy, Suspense } from 'react';
import type { CheckSummary } from '@contracts/health';
import { HealthDashboard } from '../../features/health/components/health-dashboard';
import { useSession } from '../session-context';

// the incidents feature's action loads with the drawer, not with /health
const CheckIncidentActions = lazy(() =>
  import('../../features/incidents/components/check-incident-actions').then((m) => ({ default: m.CheckIncidentActions })),
);

/** Spec 000 §6: Run Now is for these roles (responders and commanders have no write on canaries). */
const RUN_NOW_ROLES = new Set(['admin', 'editor', 'responder', 'commander']);

/** /health */
export function HealthPage() {
  const session = useSession();
  // spec 000 §6: attaching a check as evidence needs write on incidents and the incidents feature enabled
  const canLink = session.can('incident', 'write') && session.enabled('incidents');
  return (
    <HealthDashboard
      canRunNow={session.roles.some((r) => RUN_NOW_ROLES.has(r))}
      canEditCanaries={session.can('canaries', 'write')}
      checkActions={
        canLink
          ? (check: CheckSummary) => (
              <Suspense fallback={null}>
                <CheckIncidentActions check={check} currentUserId={session.user.id} />
              </Suspense>
            )
          : undefined
      }
    />
  );
}
