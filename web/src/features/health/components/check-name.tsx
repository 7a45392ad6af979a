import { tokens } from '@fluentui/react-components';
import { makeRowStyles } from '../../../components/data-table/row-styles';
import type { CheckSummary } from '@contracts/health';
import { text200 } from '../../../components/status/text-styles';
import { CheckIcon } from './check-icon';
import { agentName, isLocalAgent } from '../filters';
import { useAgentNamesContext } from '../agent-names';

const useStyles = makeRowStyles({
  root: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  icon: { color: tokens.colorNeutralForeground3 },
  name: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', minWidth: 0 },
  // a plain span styled as Fluent's <Text size={200}> (this name is in every row of a 10,000-check table)
  ns: { ...text200, color: tokens.colorNeutralForeground3, flexShrink: 0 },
  // a plain span styled as a small tint Badge, for the same reason
  agent: { ...text200, flexShrink: 0, padding: `0 ${tokens.spacingHorizontalXS}`, borderRadius: tokens.borderRadiusMedium, backgroundColor: tokens.colorBrandBackground2, color: tokens.colorBrandForeground2 },
});

/** Icon, name and namespace of a check, and its agent's name when a remote agent pushed it. */
export function CheckName({ check }: { check: Pick<CheckSummary, 'type' | 'name' | 'namespace'> & { agent_id?: string | null } }) {
  const s = useStyles();
  const names = useAgentNamesContext();
  return (
    <span className={s.root}>
      <span className={s.icon}><CheckIcon type={check.type} /></span>
      <span className={s.name} title={check.name}>{check.name}</span>
      {check.namespace && <span className={s.ns}>{check.namespace}</span>}
      <AgentBadge agentId={check.agent_id} names={names} />
    </span>
  );
}

/**
 * "Agent <name>" for a row a remote agent pushed (a check, a catalog item, a topology component); nothing for the
 * console's own. The name comes from `name`, else `names`, else the AgentNamesContext (the id while unknown).
 */
export function AgentBadge({ agentId, name, names }: { agentId: string | null | undefined; name?: string | null; names?: ReadonlyMap<string, string> }) {
  const s = useStyles();
  const context = useAgentNamesContext();
  if (isLocalAgent(agentId)) return null;
  return <span className={s.agent} data-agent-id={agentId}>Agent {name || agentName(agentId, names ?? context)}</span>;
}
