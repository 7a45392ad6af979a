import { Button, Dropdown, Field, makeStyles, Option, Slider, Switch, tokens, Tooltip } from '@fluentui/react-components';
import { ArrowSortDown20Regular, ArrowSortUp20Regular } from '@fluentui/react-icons';
import { CARD_WIDTH, formatLabels, parseLabels, type TopologyFilters, type TopologySort } from '../model';

const ALL = '__all__';

const useStyles = makeStyles({
  bar: { display: 'flex', flexWrap: 'wrap', alignItems: 'flex-end', gap: tokens.spacingHorizontalM, marginBottom: tokens.spacingVerticalM },
  select: { minWidth: '120px', maxWidth: '200px' },
  labels: { minWidth: '150px', maxWidth: '260px' },
  sort: { display: 'flex', alignItems: 'flex-end', gap: tokens.spacingHorizontalXS },
  slider: { width: '160px' },
  // 259 steps would draw a tick mark every 0.4 %: the marks cover the whole rail
  rail: { '::before': { backgroundImage: 'none' } },
  switch: { paddingBottom: '2px' },
});

interface Choice { value: string; label: string }

function Select({ label, value, choices, onChange }: { label: string; value: string; choices: Choice[]; onChange: (v: string) => void }) {
  const s = useStyles();
  const all = [{ value: ALL, label: 'All' }, ...choices];
  const current = value || ALL;
  return (
    <Field label={label} size="small">
      <Dropdown
        size="small"
        className={s.select}
        value={all.find((c) => c.value === current)?.label ?? current}
        selectedOptions={[current]}
        onOptionSelect={(_, d) => d.optionValue && onChange(d.optionValue === ALL ? '' : d.optionValue)}
        listbox={{ style: { maxHeight: '320px' } }}
      >
        {all.map((c) => <Option key={c.value} value={c.value}>{c.label}</Option>)}
      </Dropdown>
    </Field>
  );
}

export interface FilterOptions {
  healthStatuses: string[];
  types: string[];
  teams: string[];
  tags: Record<string, string[]>;
  agents: { id: string; name: string }[];
  sorts: Choice[];
}

const plain = (xs: string[]): Choice[] => xs.map((x) => ({ value: x, label: x }));

/** Health, Type, Team, Labels, Agent, Sort with its order, hidden components, and the card width. */
export function TopologyFilterBar({ value, onChange, sort, onSort, width, onWidth, options }: {
  value: TopologyFilters;
  onChange: (patch: Partial<TopologyFilters>) => void;
  sort: TopologySort;
  onSort: (s: TopologySort) => void;
  width: number;
  onWidth: (w: number) => void;
  options: FilterOptions;
}) {
  const s = useStyles();
  const labels = parseLabels(value.labels);
  const pairs = Object.entries(options.tags).flatMap(([k, vs]) => vs.map((v) => `${k}=${v}`));
  const sortLabel = options.sorts.find((c) => c.value === sort.by)?.label ?? sort.by.replace(/^field:/, '');
  return (
    <div className={s.bar} role="search" aria-label="Filter components">
      <Select label="Health" value={value.status} choices={plain(options.healthStatuses)} onChange={(status) => onChange({ status })} />
      <Select label="Type" value={value.type} choices={plain(options.types)} onChange={(type) => onChange({ type })} />
      <Select label="Team" value={value.team} choices={plain(options.teams)} onChange={(team) => onChange({ team })} />
      <Field label="Labels" size="small">
        <Dropdown
          size="small"
          className={s.labels}
          multiselect
          placeholder="All"
          value={labels.join(', ')}
          selectedOptions={labels}
          onOptionSelect={(_, d) => onChange({ labels: formatLabels(d.selectedOptions) })}
          listbox={{ style: { maxHeight: '320px' } }}
        >
          {[...new Set([...pairs, ...labels])].map((p) => <Option key={p} value={p}>{p}</Option>)}
        </Dropdown>
      </Field>
      {options.agents.length > 0 && (
        <Select
          label="Agent"
          value={value.agent}
          choices={[{ value: 'local', label: 'local' }, ...options.agents.map((a) => ({ value: a.id, label: a.name }))]}
          onChange={(agent) => onChange({ agent })}
        />
      )}
      <div className={s.sort}>
        <Field label="Sort" size="small">
          <Dropdown
            size="small"
            className={s.select}
            value={sortLabel}
            selectedOptions={[sort.by]}
            onOptionSelect={(_, d) => d.optionValue && onSort({ ...sort, by: d.optionValue })}
          >
            {options.sorts.map((c) => <Option key={c.value} value={c.value}>{c.label}</Option>)}
          </Dropdown>
        </Field>
        <Tooltip content={sort.order === 'asc' ? 'Ascending' : 'Descending'} relationship="label">
          <Button
            size="small"
            icon={sort.order === 'asc' ? <ArrowSortUp20Regular /> : <ArrowSortDown20Regular />}
            onClick={() => onSort({ ...sort, order: sort.order === 'asc' ? 'desc' : 'asc' })}
          />
        </Tooltip>
      </div>
      <Switch
        className={s.switch}
        label="Show hidden components"
        checked={value.showHidden}
        onChange={(_, d) => onChange({ showHidden: d.checked })}
      />
      <Field label={`Card width (${width} px)`} size="small">
        <Slider
          className={s.slider}
          rail={{ className: s.rail }}
          size="small"
          min={CARD_WIDTH.min}
          max={CARD_WIDTH.max}
          step={CARD_WIDTH.step}
          value={width}
          onChange={(_, d) => onWidth(d.value)}
        />
      </Field>
    </div>
  );
}
