import { createContext, useContext } from 'react';
import { can, effectiveRoles, type Action, type Feature, type Resource } from '@contracts/rbac-table';
import type { Session } from '../features/auth/api';
import type { About } from '@contracts/system';

/** The signed-in user as every route sees it; provided by the session gate once whoami and about loaded. */
export interface SessionInfo extends Session {
  about: About;
  can(resource: Resource, action?: Action): boolean;
  enabled(feature: Feature): boolean;
  /** Viewers (no role beyond viewer) do not see the settings menu. */
  isViewer: boolean;
}

export const SessionContext = createContext<SessionInfo | null>(null);

export function toSessionInfo(session: Session, about: About): SessionInfo {
  return {
    ...session,
    about,
    can: (resource, action = 'read') => can(session.roles, resource, action),
    // a feature the server does not report is not disabled
    enabled: (feature) => session.features[feature] !== false,
    isViewer: effectiveRoles(session.roles).every((r) => r === 'viewer'),
  };
}

export function useSession(): SessionInfo {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the session gate');
  return session;
}
