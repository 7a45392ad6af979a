import { lazy, Suspense, useState } from 'react';
import { Button, Dropdown, Field, Input, makeStyles, Option, Switch, Tag, TagGroup, tokens } from '@fluentui/react-components';
import { CalendarLtr20Regular, Dismiss16Regular } from '@fluentui/react-icons';
import { ViewsMenu } from '../../../components/saved-views/views-menu';
import { timeRangeLabel, type TimeRange } from '../../../lib/time-range';
import { useChangeTypes, useConfigTags, useConfigTypes } from '../api';
import {
  ARBITRARY_FIELDS,
  CHANGE_FILTER_DEFAULTS,
  CHANGE_SEVERITIES,
  formatTriState,
  parseTriState,
  TYPE_FILTERS,
  type ArbitraryField,
  type ChangeFilters,
} from '../model';

const TimeRangePicker = lazy(() =>
  import('../../../components/time-range/time-range-picker').then((m) => ({ default: m.TimeRangePicker })),
);

const useStyles = makeStyles({
  bar: { display: 'flex', flexWrap: 'wrap', alignItems: 'flex-end', gap: tokens.spacingHorizontalM, marginBottom: tokens.spacingVerticalS },
  select: { minWidth: '170px', maxWidth: '260px' },
  field: { minWidth: '150px' },
  value: { width: '200px' },
  chips: { marginBottom: tokens.spacingVerticalS },
});

export const ARBITRARY_LABELS: Record<ArbitraryField, string> = {
  id: 'Config ID',
  summary: 'Summary',
  source: 'Source',
  created_by: 'Created By',
  external_created_by: 'External Created By',
};
const TYPE_FILTER_LABELS: Record<string, string> = { '': 'This item', all: 'All related', upstream: 'Upstream', downstream: 'Downstream' };
const SEVERITY_LABEL = (s: string) => (s ? s.charAt(0).toUpperCase() + s.slice(1) : 'All');

/**
 * A multi-select over a tri-state URL list: choosing keeps values; values the link left out (`:-1`) stay left out
 * and show as "not x".
 */
function TriStateSelect({ label, raw, options, onChange, format = (v) => v }: {
  label: string;
  raw: string;
  options: string[];
  onChange: (raw: string) => void;
  format?: (v: string) => string;
}) {
  const s = useStyles();
  const entries = parseTriState(raw);
  const kept = entries.filter((e) => !e.exclude).map((e) => e.value);
  const left = entries.filter((e) => e.exclude);
  const all = [...new Set([...options, ...kept])];
  const text = [...kept.map(format), ...left.map((e) => `not ${format(e.value)}`)].join(', ');
  return (
    <Field label={label}>
      <Dropdown
        className={s.select}
        multiselect
        placeholder="All"
        value={text}
        selectedOptions={kept}
        onOptionSelect={(_, d) => onChange(formatTriState([...d.selectedOptions.map((value) => ({ value, exclude: false })), ...left]))}
        listbox={{ style: { maxHeight: '320px' } }}
      >
        {all.map((o) => (
          <Option key={o} value={o}>{format(o)}</Option>
        ))}
      </Dropdown>
    </Field>
  );
}

export interface ChangesFilterBarProps {
  value: ChangeFilters;
  range: TimeRange;
  onChange: (patch: Partial<ChangeFilters>) => void;
  onRange: (range: TimeRange) => void;
  showDeleted: boolean;
  onShowDeleted: (v: boolean) => void;
  /** An item's tab: the related-changes choice instead of the Config ID filter. */
  item?: boolean;
}

/** Config types, change type, severity, tags, time range, arbitrary filter, related changes, deleted configs. */
export function ChangesFilterBar({ value, range, onChange, onRange, showDeleted, onShowDeleted, item }: ChangesFilterBarProps) {
  const s = useStyles();
  const changeTypes = useChangeTypes();
  const configTypes = useConfigTypes();
  const tags = useConfigTags();
  const [field, setField] = useState<ArbitraryField>('summary');
  const [text, setText] = useState('');
  const fields = ARBITRARY_FIELDS.filter((f) => !(item && f === 'id'));
  const active = fields.filter((f) => value[f]);
  const dirty = (Object.keys(CHANGE_FILTER_DEFAULTS) as (keyof ChangeFilters)[]).some((k) => value[k] !== CHANGE_FILTER_DEFAULTS[k]);
  const apply = () => {
    if (!text.trim()) return;
    onChange({ [field]: text.trim() });
    setText('');
  };

  return (
    <>
      <div className={s.bar} role="search" aria-label="Change filters">
        {!item && (
          <TriStateSelect label="Config Type" raw={value.configTypes} options={configTypes.data ?? []} onChange={(configTypes) => onChange({ configTypes, configType: '' })} />
        )}
        <TriStateSelect label="Change Type" raw={value.changeType} options={changeTypes.data ?? []} onChange={(changeType) => onChange({ changeType })} />
        <Field label="Severity">
          <Dropdown
            className={s.field}
            value={SEVERITY_LABEL(value.severity)}
            selectedOptions={[value.severity]}
            onOptionSelect={(_, d) => onChange({ severity: d.optionValue ?? '' })}
          >
            {['', ...CHANGE_SEVERITIES].map((v) => (
              <Option key={v || 'all'} value={v}>{SEVERITY_LABEL(v)}</Option>
            ))}
          </Dropdown>
        </Field>
        <TriStateSelect
          label="Tags"
          raw={value.tags}
          options={(tags.data ?? []).map((t) => `${t.key}____${t.value}`)}
          format={(v) => v.replace('____', '=')}
          onChange={(tags) => onChange({ tags })}
        />
        {item && (
          <Field label="Related">
            <Dropdown
              className={s.field}
              value={TYPE_FILTER_LABELS[value.type_filter] ?? TYPE_FILTER_LABELS['']}
              selectedOptions={[value.type_filter]}
              onOptionSelect={(_, d) => onChange({ type_filter: d.optionValue ?? '' })}
            >
              {['', ...TYPE_FILTERS].map((v) => (
                <Option key={v || 'own'} value={v}>{TYPE_FILTER_LABELS[v]}</Option>
              ))}
            </Dropdown>
          </Field>
        )}
        <Suspense fallback={<Button icon={<CalendarLtr20Regular />}>{timeRangeLabel(range)}</Button>}>
          <TimeRangePicker value={range} onChange={onRange} showFuture={false} />
        </Suspense>
        <Field label="Filter by">
          <Dropdown
            className={s.field}
            value={ARBITRARY_LABELS[field]}
            selectedOptions={[field]}
            onOptionSelect={(_, d) => d.optionValue && setField(d.optionValue as ArbitraryField)}
          >
            {fields.map((f) => (
              <Option key={f} value={f}>{ARBITRARY_LABELS[f]}</Option>
            ))}
          </Dropdown>
        </Field>
        <Field label={`${ARBITRARY_LABELS[field]} value`}>
          <Input
            className={s.value}
            value={text}
            placeholder="Enter to apply"
            onChange={(_, d) => setText(d.value)}
            onKeyDown={(e) => e.key === 'Enter' && apply()}
            onBlur={apply}
          />
        </Field>
        <Switch label="Show deleted configs" checked={showDeleted} onChange={(_, d) => onShowDeleted(d.checked)} />
        {dirty && (
          <Button appearance="subtle" icon={<Dismiss16Regular />} onClick={() => onChange(CHANGE_FILTER_DEFAULTS)}>
            Reset
          </Button>
        )}
        {!item && <ViewsMenu path="/catalog/changes" />}
      </div>
      {active.length > 0 && (
        <TagGroup
          className={s.chips}
          aria-label="Active filters"
          onDismiss={(_, d) => onChange({ [d.value as ArbitraryField]: '' })}
        >
          {active.map((f) => (
            <Tag key={f} value={f} dismissible dismissIcon={{ 'aria-label': `Remove ${ARBITRARY_LABELS[f]} filter` }} size="small">
              {ARBITRARY_LABELS[f]}: {value[f]}
            </Tag>
          ))}
        </TagGroup>
      )}
    </>
  );
}
