import { Dropdown, Field, makeStyles, Option, tokens } from '@fluentui/react-components';
import { STATUS_LABELS, type HistoryFilters } from '../model';

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
  return (
    <Field label={label}>
      <Dropdown
        className={s.select}
        value={choices.find((c) => c.value === value)?.label ?? value}
        selectedOptions={[value]}
        onOptionSelect={(_, d) => onChange(d.optionValue ?? '')}
        listbox={{ style: { maxHeight: '320px' } }}
      >
        {choices.map((c) => (
          <Option key={c.value || 'all'} value={c.value}>{c.label}</Option>
        ))}
      </Dropdown>
    </Field>
  );
}

const STATUS_CHOICES: Choice[] = [{ value: '', label: 'All' }, ...Object.entries(STATUS_LABELS).map(([value, label]) => ({ value, label }))];

export interface HistoryFilterBarProps {
  value: HistoryFilters;
  resourceTypes: string[];
  onChange: (patch: Partial<HistoryFilters>) => void;
}

/** Status and resource type, each one value or All (a link may carry a list: `status=error,pending`). */
export function HistoryFilterBar({ value, resourceTypes, onChange }: HistoryFilterBarProps) {
  const s = useStyles();
  const types: Choice[] = [{ value: '', label: 'All' }, ...resourceTypes.map((t) => ({ value: t, label: t }))];
  if (value.resourceType && !resourceTypes.includes(value.resourceType)) types.push({ value: value.resourceType, label: value.resourceType });
  const statuses = STATUS_CHOICES.some((c) => c.value === value.status) ? STATUS_CHOICES : [...STATUS_CHOICES, { value: value.status, label: value.status }];
  return (
    <div className={s.bar} role="search" aria-label="Notification filters">
      <FilterDropdown label="Status" value={value.status} choices={statuses} onChange={(status) => onChange({ status })} />
      <FilterDropdown label="Resource Type" value={value.resourceType} choices={types} onChange={(resourceType) => onChange({ resourceType })} />
    </div>
  );
}
