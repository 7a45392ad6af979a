import { useEffect, useMemo, useRef, useState } from 'react';
import {
  Button, Dropdown, Field, Input, makeStyles, Option, Popover, PopoverSurface, PopoverTrigger, SearchBox, Switch, Tag,
  TagGroup, Text, tokens, Tooltip,
} from '@fluentui/react-components';
import { Checkmark16Regular, Dismiss16Regular, Tag16Regular } from '@fluentui/react-icons';
import { ViewsMenu } from '../../../components/saved-views/views-menu';
import { useFilterOptions } from '../api';
import { cycleLabel, formatLabelFilters, parseLabelFilters, type CatalogFilters, type LabelFilter } from '../filters';

/** Typing in the search box waits for this much quiet before it changes the URL (and the query). */
const SEARCH_MS = 400;
const ALL = '__all__';
export const HEALTH_VALUES = ['healthy', 'unhealthy', 'warning', 'unknown'] as const;

const useStyles = makeStyles({
  bar: { display: 'flex', flexWrap: 'wrap', alignItems: 'flex-end', gap: tokens.spacingHorizontalM, marginBottom: tokens.spacingVerticalS },
  select: { minWidth: '150px', maxWidth: '240px' },
  search: { minWidth: '200px', flex: '1 1 200px', maxWidth: '320px' },
  chips: { marginBottom: tokens.spacingVerticalS },
  surface: { width: '380px', display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
  list: { maxHeight: '320px', overflowY: 'auto', display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXXS },
  row: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  pair: { flex: 1, minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', fontFamily: tokens.fontFamilyMonospace, fontSize: tokens.fontSizeBase200 },
  tri: { minWidth: '28px', width: '28px', padding: 0 },
});

function Choice({ label, value, choices, onChange }: { label: string; value: string; choices: { value: string; label: string }[]; onChange: (v: string) => void }) {
  const s = useStyles();
  const all = [{ value: ALL, label: 'All' }, ...choices];
  const current = value || ALL;
  return (
    <Field label={label}>
      <Dropdown
        className={s.select}
        value={all.find((c) => c.value === current)?.label ?? current}
        selectedOptions={[current]}
        onOptionSelect={(_, d) => d.optionValue && onChange(d.optionValue === ALL ? '' : d.optionValue)}
        listbox={{ style: { maxHeight: '320px' } }}
      >
        {all.map((c) => (
          <Option key={c.value} value={c.value}>{c.label}</Option>
        ))}
      </Dropdown>
    </Field>
  );
}

/**
 * The labels picker: every key=value pair, each included (✓), excluded (✗) or neither. Plain buttons with aria-pressed
 * rather than ToggleButton: sharing ToggleButton with /health split it out of the /health chunk (+0.1 kB gzip there).
 */
function LabelPicker({ value, onChange }: { value: LabelFilter[]; onChange: (next: LabelFilter[]) => void }) {
  const s = useStyles();
  const { labels } = useFilterOptions();
  const [q, setQ] = useState('');
  const pairs = useMemo(() => {
    const needle = q.trim().toLowerCase();
    return (labels.data ?? []).filter((l) => !needle || `${l.key}=${l.value}`.toLowerCase().includes(needle)).slice(0, 200);
  }, [labels.data, q]);
  const modeOf = (key: string, v: string) => value.find((f) => f.key === key && f.value === v)?.mode;
  const set = (key: string, v: string, mode: 'include' | 'exclude') => {
    const rest = value.filter((f) => !(f.key === key && f.value === v));
    onChange(modeOf(key, v) === mode ? rest : [...rest, { key, value: v, mode }]);
  };
  return (
    <Popover positioning="below-start" trapFocus>
      <PopoverTrigger disableButtonEnhancement>
        <Button icon={<Tag16Regular />}>Labels{value.length ? ` (${value.length})` : ''}</Button>
      </PopoverTrigger>
      <PopoverSurface className={s.surface} aria-label="Label filters">
        <Input placeholder="Filter labels" value={q} onChange={(_, d) => setQ(d.value)} aria-label="Filter labels" />
        <div className={s.list}>
          {labels.isLoading && <Text size={200}>Loading…</Text>}
          {!labels.isLoading && !pairs.length && <Text size={200}>No labels</Text>}
          {pairs.map((l) => {
            const mode = modeOf(l.key, l.value);
            const name = `${l.key}=${l.value}`;
            return (
              <div key={name} className={s.row}>
                <span className={s.pair} title={name}>{name}</span>
                <Tooltip content={`Include ${name}`} relationship="label">
                  <Button size="small" className={s.tri} appearance={mode === 'include' ? 'primary' : 'secondary'} aria-pressed={mode === 'include'} icon={<Checkmark16Regular />} onClick={() => set(l.key, l.value, 'include')} />
                </Tooltip>
                <Tooltip content={`Exclude ${name}`} relationship="label">
                  <Button size="small" className={s.tri} appearance={mode === 'exclude' ? 'primary' : 'secondary'} aria-pressed={mode === 'exclude'} icon={<Dismiss16Regular />} onClick={() => set(l.key, l.value, 'exclude')} />
                </Tooltip>
              </div>
            );
          })}
        </div>
      </PopoverSurface>
    </Popover>
  );
}

export interface CatalogFilterBarProps {
  value: CatalogFilters;
  onChange: (patch: Partial<CatalogFilters>) => void;
}

/** Group by, type, status, health, labels (tri-state), deleted and search; each change goes to the URL at once. */
export function CatalogFilterBar({ value, onChange }: CatalogFilterBarProps) {
  const s = useStyles();
  const { types, statuses, tagKeys } = useFilterOptions();
  const labels = parseLabelFilters(value.labels);
  const [search, setSearch] = useState(value.search);
  useEffect(() => setSearch(value.search), [value.search]);
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    if (search === value.search) return;
    const t = setTimeout(() => latest.current({ search }), SEARCH_MS);
    return () => clearTimeout(t);
  }, [search, value.search]);

  const groupChoices = [
    { value: 'type', label: 'Type' },
    { value: 'config_class', label: 'Class' },
    ...(tagKeys.data ?? []).map((k) => ({ value: `tag:${k}`, label: `Tag: ${k}` })),
  ];
  const words = (xs: readonly string[]) => xs.map((x) => ({ value: x, label: x }));
  const setLabels = (next: LabelFilter[]) => onChange({ labels: formatLabelFilters(next) });

  return (
    <>
      <div className={s.bar} role="search" aria-label="Catalog filters">
        <Field label="Group by">
          <Dropdown
            className={s.select}
            value={groupChoices.find((c) => c.value === value.groupBy)?.label ?? value.groupBy}
            selectedOptions={[value.groupBy]}
            onOptionSelect={(_, d) => d.optionValue && onChange({ groupBy: d.optionValue })}
          >
            {groupChoices.map((c) => (
              <Option key={c.value} value={c.value}>{c.label}</Option>
            ))}
          </Dropdown>
        </Field>
        <Choice label="Type" value={value.type} choices={words(types.data ?? [])} onChange={(type) => onChange({ type })} />
        <Choice label="Status" value={value.status} choices={words(statuses.data ?? [])} onChange={(status) => onChange({ status })} />
        <Choice label="Health" value={value.health} choices={words(HEALTH_VALUES)} onChange={(health) => onChange({ health })} />
        <LabelPicker value={labels} onChange={setLabels} />
        <Switch label="Show deleted" checked={value.deleted} onChange={(_, d) => onChange({ deleted: d.checked })} />
        <Field label="Search" className={s.search}>
          <SearchBox placeholder="Search by name or type" value={search} onChange={(_, d) => setSearch(d.value)} />
        </Field>
        <ViewsMenu path="/catalog" />
      </div>
      {labels.length > 0 && (
        <TagGroup
          className={s.chips}
          aria-label="Active label filters"
          onDismiss={(_, d) => {
            const [key, v] = String(d.value).split('\u0000');
            setLabels(labels.filter((f) => !(f.key === key && f.value === v)));
          }}
        >
          {labels.map((f) => (
            <Tag
              key={`${f.key}=${f.value}`}
              size="small"
              dismissible
              value={`${f.key}\u0000${f.value}`}
              appearance={f.mode === 'include' ? 'brand' : 'outline'}
              dismissIcon={{ 'aria-label': `Remove ${f.key}=${f.value}` }}
              onClick={() => setLabels(cycleLabel(labels, f.key, f.value))}
            >
              {f.mode === 'include' ? '' : 'not '}
              {f.key}={f.value}
            </Tag>
          ))}
        </TagGroup>
      )}
    </>
  );
}
