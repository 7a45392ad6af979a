import { TeamDetail } from '../../features/teams/components/team-detail';
import { TeamsSettings } from '../../features/teams/components/teams-settings';
import { pathTo, paths } from '../paths';
import { useSession } from '../session-context';

const teamsHref = pathTo(paths.settingsTable, { table: 'teams' });
const teamHref = (id: string) => pathTo(paths.settingsTableItem, { table: 'teams', id });

/** /settings/teams */
export function SettingsTeamsPage() {
  const session = useSession();
  return (
    <TeamsSettings canWrite={session.can('database', 'write')} currentUserId={session.user.id} teamHref={teamHref} />
  );
}

/** /settings/teams/{id} */
export function SettingsTeamPage({ params }: { params: Record<string, string | undefined> }) {
  const session = useSession();
  return <TeamDetail id={params.id ?? ''} canWrite={session.can('database', 'write')} teamsHref={teamsHref} />;
}
