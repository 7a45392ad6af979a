import { Dropdown, Field, makeStyles, Option, tokens } from '@fluentui/react-components';
import { TimeRangePicker } from '../../../../components/time-range/time-range-picker';
import type { TimeRange } from '../../../../lib/time-range';
import { usePlaybookNames, type RunFilters } from '../api-runs';
import { runStatusLabel } from '../../../../components/playbooks/run-status';
import { RUN_STATUSES } from '../model';

const useStyles = makeStyles({
  bar: { display: 'flex', flexWrap: 'wrap', alignItems: 'flex-end', gap: tokens.spacingHorizontalM, marginBottom: tokens.spacingVerticalM },
  select: { minWidth: '180px' },
});

interface Choice {
  value: string;
  label: string;
}

function FilterDropdown({ label, value, choices, onChange }: { label: string; value: string; choices: Choice[]; onChange: (v: string) => void }) {
  const s = useStyles();
  const all: Choice[] = [{ value: '', label: 'All' }, ...choices];
  return (
    <Field label={label}>
      <Dropdown
        className={s.select}
        value={all.find((c) => c.value === value)?.label ?? value}
        selectedOptions={[value]}
        onOptionSelect={(_, d) => onChange(d.optionValue ?? '')}
        listbox={{ style: { maxHeight: '320px' } }}
      >
        {all.map((c) => (
          <Option key={c.value || 'all'} value={c.value}>{c.label}</Option>
        ))}
      </Dropdown>
    </Field>
  );
}

export interface RunFilterBarProps {
  value: RunFilters;
  onChange: (patch: Partial<RunFilters>) => void;
  range: TimeRange;
  onRangeChange: (range: TimeRange) => void;
}

/** Status, playbook and time range; each applies at once and lives in the URL. */
export function RunFilterBar({ value, onChange, range, onRangeChange }: RunFilterBarProps) {
  const s = useStyles();
  const names = usePlaybookNames();
  return (
    <div className={s.bar} role="search" aria-label="Playbook run filters">
      <FilterDropdown
        label="Playbook"
        value={value.playbook}
        choices={(names.data ?? []).map((p) => ({ value: p.id, label: p.title || p.name }))}
        onChange={(playbook) => onChange({ playbook })}
      />
      <FilterDropdown
        label="Status"
        value={value.status}
        choices={RUN_STATUSES.map((v) => ({ value: v, label: runStatusLabel(v) }))}
        onChange={(status) => onChange({ status })}
      />
      {/* the picker's trigger names itself ("Time range") */}
      <TimeRangePicker value={range} onChange={onRangeChange} showFuture={false} />
    </div>
  );
}
