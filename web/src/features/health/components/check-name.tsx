import { makeStyles, Text, tokens } from '@fluentui/react-components';
import type { CheckSummary } from '@contracts/health';
import { CheckIcon } from './check-icon';

const useStyles = makeStyles({
  root: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  icon: { color: tokens.colorNeutralForeground3 },
  name: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', minWidth: 0 },
  ns: { color: tokens.colorNeutralForeground3, flexShrink: 0 },
});

/** Icon, name and namespace of a check. */
export function CheckName({ check }: { check: Pick<CheckSummary, 'type' | 'name' | 'namespace'> }) {
  const s = useStyles();
  return (
    <span className={s.root}>
      <span className={s.icon}><CheckIcon type={check.type} /></span>
      <span className={s.name} title={check.name}>{check.name}</span>
      {check.namespace && <Text size={200} className={s.ns}>{check.namespace}</Text>}
    </span>
  );
}
