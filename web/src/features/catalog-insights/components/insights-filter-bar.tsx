import { Button, Dropdown, Field, makeStyles, Option, tokens } from '@fluentui/react-components';
import { Dismiss16Regular } from '@fluentui/react-icons';
import { ViewsMenu } from '../../../components/saved-views/views-menu';
import { useAnalysisTypes, useAnalyzers, useInsightComponents, useInsightConfigTypes } from '../api';
import { ALL, INSIGHT_FILTER_DEFAULTS, INSIGHT_SEVERITIES, INSIGHT_STATUSES, type InsightFilters } from '../model';

const useStyles = makeStyles({
  bar: { display: 'flex', flexWrap: 'wrap', alignItems: 'flex-end', gap: tokens.spacingHorizontalM, marginBottom: tokens.spacingVerticalM },
  select: { minWidth: '160px', maxWidth: '260px' },
});

const word = (v: string) => v.charAt(0).toUpperCase() + v.slice(1).replaceAll('_', ' ');

function Select({ label, value, options, onChange, allValue = '', format = word }: {
  label: string;
  value: string;
  options: readonly string[];
  onChange: (v: string) => void;
  allValue?: string;
  format?: (v: string) => string;
}) {
  const s = useStyles();
  // a value from a link that no row has (yet) stays choosable
  const all = [...new Set([...options, ...(value && value !== allValue ? [value] : [])])];
  return (
    <Field label={label}>
      <Dropdown
        className={s.select}
        value={value && value !== allValue ? format(value) : 'All'}
        selectedOptions={[value]}
        onOptionSelect={(_, d) => onChange(d.optionValue ?? allValue)}
        listbox={{ style: { maxHeight: '320px' } }}
      >
        <Option value={allValue}>All</Option>
        {all.map((o) => (
          <Option key={o} value={o}>{format(o)}</Option>
        ))}
      </Dropdown>
    </Field>
  );
}

export interface InsightsFilterBarProps {
  value: InsightFilters;
  onChange: (patch: Partial<InsightFilters>) => void;
  /** An item's tab: no Config Type or Component filter. */
  item?: boolean;
}

/** Config type, type, severity, analyzer, component (spec 001 §2 "Insights"), status (open by default). */
export function InsightsFilterBar({ value, onChange, item }: InsightsFilterBarProps) {
  const s = useStyles();
  const configTypes = useInsightConfigTypes();
  const analyzers = useAnalyzers();
  const types = useAnalysisTypes();
  const components = useInsightComponents();
  const componentName = new Map((components.data ?? []).map((c) => [c.id, c.name ?? c.id]));
  const dirty = (Object.keys(INSIGHT_FILTER_DEFAULTS) as (keyof InsightFilters)[]).some((k) => value[k] !== INSIGHT_FILTER_DEFAULTS[k]);
  return (
    <div className={s.bar} role="search" aria-label="Insight filters">
      {!item && <Select label="Config Type" value={value.configType} options={configTypes.data ?? []} format={(v) => v} onChange={(configType) => onChange({ configType })} />}
      <Select label="Type" value={value.type} options={types.data ?? []} onChange={(type) => onChange({ type })} />
      <Select label="Severity" value={value.severity} options={INSIGHT_SEVERITIES} onChange={(severity) => onChange({ severity })} />
      <Select label="Analyzer" value={value.analyzer} options={analyzers.data ?? []} format={(v) => v} onChange={(analyzer) => onChange({ analyzer })} />
      <Select label="Status" value={value.status} options={INSIGHT_STATUSES} allValue={ALL} onChange={(status) => onChange({ status })} />
      {!item && (
        <Select
          label="Component"
          value={value.component}
          options={(components.data ?? []).map((c) => c.id)}
          format={(id) => componentName.get(id) ?? id}
          onChange={(component) => onChange({ component })}
        />
      )}
      {dirty && (
        <Button appearance="subtle" icon={<Dismiss16Regular />} onClick={() => onChange(INSIGHT_FILTER_DEFAULTS)}>
          Reset
        </Button>
      )}
      {!item && <ViewsMenu path="/catalog/insights" />}
    </div>
  );
}
