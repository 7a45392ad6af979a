import { Avatar } from '@fluentui/react-components';
import type { Team } from './api';

/** A team's mark: its initials on a colour derived from the name (icons are names from the reference's set). */
export function TeamIcon({ team, size }: { team: Pick<Team, 'name' | 'icon'>; size: 20 | 24 | 32 | 48 }) {
  return <Avatar name={team.name} shape="square" color="colorful" size={size} aria-hidden />;
}
