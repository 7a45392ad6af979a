import { lazy, Suspense, useEffect, useState } from 'react';
import { Button, Dropdown, Field, Input, makeStyles, Option, tokens } from '@fluentui/react-components';
import { CalendarLtr20Regular, Dismiss16Regular } from '@fluentui/react-icons';
import { timeRangeLabel, type TimeRange } from '../../../lib/time-range';
import { ALL, DEFAULT_STATUS, JOB_RESOURCE_TYPES, JOB_STATUSES, statusLabel, URL_DEFAULTS, type JobFilters } from '../model';

const TimeRangePicker = lazy(() =>
  import('../../../components/time-range/time-range-picker').then((m) => ({ default: m.TimeRangePicker })),
);

/** The minimum duration applies after this much quiet, not at every keystroke. */
const DURATION_SUBMIT_MS = 500;

const useStyles = makeStyles({
  bar: { display: 'flex', flexWrap: 'wrap', alignItems: 'flex-end', gap: tokens.spacingHorizontalM, marginBottom: tokens.spacingVerticalM },
  select: { minWidth: '160px' },
  duration: { width: '150px' },
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
        onOptionSelect={(_, d) => d.optionValue && onChange(d.optionValue)}
        listbox={{ style: { maxHeight: '320px' } }}
      >
        {choices.map((c) => (
          <Option key={c.value} value={c.value}>{c.label}</Option>
        ))}
      </Dropdown>
    </Field>
  );
}

const TYPE_LABELS: Record<string, string> = { canary: 'Canary', topology: 'Topology', config_scraper: 'Catalog Scraper' };
const STATUS_CHOICES: Choice[] = [DEFAULT_STATUS, ALL, ...JOB_STATUSES].map((v) => ({ value: v, label: statusLabel(v) }));

export interface JobFilterBarProps {
  value: JobFilters;
  names: string[];
  range: TimeRange;
  onChange: (patch: Partial<JobFilters>) => void;
  onRange: (range: TimeRange) => void;
}

/** Job name, resource type, status (default all but Success), minimum duration in ms, time range. */
export function JobFilterBar({ value, names, range, onChange, onRange }: JobFilterBarProps) {
  const s = useStyles();
  const [duration, setDuration] = useState(value.duration);
  useEffect(() => setDuration(value.duration), [value.duration]);
  useEffect(() => {
    if (duration === value.duration) return;
    const t = setTimeout(() => onChange({ duration }), DURATION_SUBMIT_MS);
    return () => clearTimeout(t);
  }, [duration]); // eslint-disable-line react-hooks/exhaustive-deps
  const nameChoices = [{ value: ALL, label: 'All' }, ...names.map((n) => ({ value: n, label: n }))];
  // a name from a link that no run has (yet) stays choosable
  if (value.name !== ALL && !names.includes(value.name)) nameChoices.push({ value: value.name, label: value.name });
  const dirty = (Object.keys(URL_DEFAULTS) as (keyof JobFilters)[]).some((k) => value[k] !== URL_DEFAULTS[k]);

  return (
    <div className={s.bar} role="search" aria-label="Job filters">
      <FilterDropdown label="Job Name" value={value.name} choices={nameChoices} onChange={(name) => onChange({ name })} />
      <FilterDropdown
        label="Resource Type"
        value={value.resourceType}
        choices={[{ value: ALL, label: 'All' }, ...JOB_RESOURCE_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }))]}
        onChange={(resourceType) => onChange({ resourceType })}
      />
      <FilterDropdown label="Status" value={value.status} choices={STATUS_CHOICES} onChange={(status) => onChange({ status })} />
      <Field label="Min Duration (ms)">
        <Input
          className={s.duration}
          type="number"
          min={0}
          step={100}
          value={duration}
          onChange={(_, d) => setDuration(d.value)}
          onKeyDown={(e) => e.key === 'Enter' && onChange({ duration })}
        />
      </Field>
      {/* the picker's trigger names itself ("Time range"): no Field label pointing at a control it cannot reach */}
      <Suspense fallback={<Button icon={<CalendarLtr20Regular />}>{timeRangeLabel(range)}</Button>}>
        <TimeRangePicker value={range} onChange={onRange} showFuture={false} />
      </Suspense>
      {dirty && (
        <Button appearance="subtle" icon={<Dismiss16Regular />} onClick={() => onChange(URL_DEFAULTS)}>
          Reset
        </Button>
      )}
    </div>
  );
}
