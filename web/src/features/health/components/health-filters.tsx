import { memo } from 'react';
import {
  Button,
  Combobox,
  Label,
  makeStyles,
  Option,
  Text,
  ToggleButton,
  tokens,
  Tooltip,
} from '@fluentui/react-components';
import { Checkmark16Regular, Dismiss16Regular } from '@fluentui/react-icons';
import { LabeledControl } from '../../../components/labeled-control';
import { ToggleSwitch } from '../../../components/toggle-switch';
import { labelId, toggleTriState, type LabelFilterDef, type LabelSelection } from '../filters';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, minWidth: 0 },
  heading: { fontWeight: tokens.fontWeightSemibold, color: tokens.colorNeutralForeground2, textTransform: 'uppercase', fontSize: tokens.fontSizeBase100, letterSpacing: '0.04em' },
  tri: { display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: tokens.spacingHorizontalS, minWidth: 0 },
  triName: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  triButtons: { display: 'flex', gap: tokens.spacingHorizontalXXS, flexShrink: 0 },
  triButton: { minWidth: '28px', width: '28px', padding: 0 },
  combo: { minWidth: 0, width: '100%' },
});

export interface HealthFiltersProps {
  hidePassing: boolean;
  onHidePassing: (v: boolean) => void;
  defs: LabelFilterDef[];
  labels: LabelSelection;
  onLabels: (next: LabelSelection) => void;
}

/** The left panel: Hide Passing and the label filters built from the checks' labels. */
export const HealthFilters = memo(function HealthFilters({ hidePassing, onHidePassing, defs, labels, onLabels }: HealthFiltersProps) {
  const s = useStyles();
  const active = Object.keys(labels).length;
  return (
    <div className={s.root} role="region" aria-label="Filters">
      <ToggleSwitch label="Hide Passing" checked={hidePassing} onChange={onHidePassing} />
      <div className={s.tri}>
        <Text className={s.heading}>Labels</Text>
        {active > 0 && (
          <Button size="small" appearance="transparent" onClick={() => onLabels({})}>
            Clear ({active})
          </Button>
        )}
      </div>
      {!defs.length && <Text size={200}>No labels on these checks.</Text>}
      {defs.map((d) =>
        d.kind === 'boolean' ? (
          <TriStateFilter key={d.key} def={d} labels={labels} onLabels={onLabels} />
        ) : (
          <MultiFilter key={d.key} def={d} labels={labels} onLabels={onLabels} />
        ),
      )}
    </div>
  );
});

function TriStateFilter({ def, labels, onLabels }: { def: LabelFilterDef; labels: LabelSelection; onLabels: (n: LabelSelection) => void }) {
  const s = useStyles();
  const id = labelId(def.key, 'true');
  const state = labels[id] ?? 0;
  return (
    <div className={s.tri} role="group" aria-label={`Label ${def.key}`}>
      <Label className={s.triName} title={def.key}>
        {def.key}
      </Label>
      <span className={s.triButtons}>
        <Tooltip content={`Include ${def.key}`} relationship="label">
          <ToggleButton
            size="small"
            className={s.triButton}
            checked={state === 1}
            icon={<Checkmark16Regular />}
            onClick={() => onLabels(toggleTriState(labels, id, 1))}
          />
        </Tooltip>
        <Tooltip content={`Exclude ${def.key}`} relationship="label">
          <ToggleButton
            size="small"
            className={s.triButton}
            checked={state === -1}
            icon={<Dismiss16Regular />}
            onClick={() => onLabels(toggleTriState(labels, id, -1))}
          />
        </Tooltip>
      </span>
    </div>
  );
}

function MultiFilter({ def, labels, onLabels }: { def: LabelFilterDef; labels: LabelSelection; onLabels: (n: LabelSelection) => void }) {
  const s = useStyles();
  const selected = def.values.filter((v) => labels[labelId(def.key, v)] === 1);
  return (
    <LabeledControl label={def.key} size="small">
      {(id) => (
        <Combobox
          id={id}
          className={s.combo}
          size="small"
          multiselect
          placeholder="All"
          value={selected.join(', ')}
          selectedOptions={selected}
          onOptionSelect={(_, d) => {
            const next = { ...labels };
            for (const v of def.values) delete next[labelId(def.key, v)];
            for (const v of d.selectedOptions) next[labelId(def.key, v)] = 1;
            onLabels(next);
          }}
        >
          {def.values.map((v) => (
            <Option key={v} value={v}>
              {v}
            </Option>
          ))}
        </Combobox>
      )}
    </LabeledControl>
  );
}
