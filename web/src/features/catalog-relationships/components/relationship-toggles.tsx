import { makeStyles, Switch, Tab, TabList, tokens, Tooltip } from '@fluentui/react-components';
import { useGraphPrefs } from '../preferences';
import { flip, outgoingEnabled, type RelationToggles } from '../toggles';

const useStyles = makeStyles({
  bar: { display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: tokens.spacingHorizontalL, marginBottom: tokens.spacingVerticalM },
  group: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS },
});

export interface RelationshipTogglesProps {
  value: RelationToggles;
  onChange: (next: RelationToggles) => void;
  showDeleted: boolean;
  onShowDeleted: (v: boolean) => void;
}

/** Outgoing, Incoming, Soft (spec 001 §2 rules), deleted items, and Table/Graph with the graph's direction and edges. */
export function RelationshipToggles({ value, onChange, showDeleted, onShowDeleted }: RelationshipTogglesProps) {
  const s = useStyles();
  const [prefs, setPrefs] = useGraphPrefs();
  const outgoing = (
    <Switch
      label="Outgoing"
      checked={value.outgoing}
      disabled={!outgoingEnabled(value)}
      onChange={(_, d) => onChange(flip(value, 'outgoing', d.checked))}
    />
  );
  return (
    <div className={s.bar} role="group" aria-label="Relationship filters">
      {outgoingEnabled(value) ? outgoing : (
        <Tooltip content="Outgoing is what the tab shows while Incoming is off" relationship="description">
          <span>{outgoing}</span>
        </Tooltip>
      )}
      <Switch label="Incoming" checked={value.incoming} onChange={(_, d) => onChange(flip(value, 'incoming', d.checked))} />
      <Switch label="Soft" checked={value.soft} onChange={(_, d) => onChange(flip(value, 'soft', d.checked))} />
      <Switch label="Show deleted" checked={showDeleted} onChange={(_, d) => onShowDeleted(d.checked)} />
      <div className={s.group}>
        <TabList size="small" selectedValue={prefs.view} onTabSelect={(_, d) => setPrefs({ view: d.value as 'table' | 'graph' })} aria-label="Relationships view">
          <Tab value="table">Table</Tab>
          <Tab value="graph">Graph</Tab>
        </TabList>
        {prefs.view === 'graph' && (
          <>
            <TabList size="small" selectedValue={prefs.direction} onTabSelect={(_, d) => setPrefs({ direction: d.value as 'TB' | 'LR' })} aria-label="Graph layout">
              <Tab value="TB">Top to bottom</Tab>
              <Tab value="LR">Left to right</Tab>
            </TabList>
            <TabList size="small" selectedValue={prefs.edges} onTabSelect={(_, d) => setPrefs({ edges: d.value as 'smoothstep' | 'bezier' })} aria-label="Edge style">
              <Tab value="smoothstep">Stepped edges</Tab>
              <Tab value="bezier">Curved edges</Tab>
            </TabList>
          </>
        )}
      </div>
    </div>
  );
}
