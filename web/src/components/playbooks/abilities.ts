import { useContext } from 'react';
import { SessionContext } from '../../app/session-context';

/** What the signed-in user may do with playbooks here (spec 000 roles): off when the playbooks feature is disabled. */
export interface PlaybookAbilities {
  /** The feature is on and the user reads runs: menus and runs tables show. */
  enabled: boolean;
  /** playbook_runs write: runs, re-runs. */
  canRun: boolean;
}

/** Read from the session (as the saved-views menu does); nothing outside the session gate. */
export function usePlaybookAbilities(): PlaybookAbilities {
  const session = useContext(SessionContext);
  if (!session) return { enabled: false, canRun: false };
  const enabled = session.enabled('playbooks') && session.can('playbook_runs');
  return { enabled, canRun: enabled && session.can('playbook_runs', 'write') };
}
