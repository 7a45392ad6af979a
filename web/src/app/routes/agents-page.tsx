import { AgentsList } from '../../features/agents/components/agents-list';
import { useSession } from '../session-context';

/** /agents and /settings/agents: the list; write on agents adds, edits and deletes. */
export function AgentsPage() {
  const session = useSession();
  return <AgentsList canWrite={session.can('agents', 'write')} />;
}
