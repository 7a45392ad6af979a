import { useEffect, useRef, useState } from 'react';
import { Button, Dropdown, Field, makeStyles, Option, SearchBox, tokens } from '@fluentui/react-components';
import { Dismiss16Regular } from '@fluentui/react-icons';
import type { IncidentFilters } from '../api';
import { useEvidenceComponents, usePeopleSearch } from '../api';
import { humanize, INCIDENT_SEVERITIES, INCIDENT_STATUSES, INCIDENT_TYPES } from '../model';

/** Spec 000 §9: the incident filters submit themselves after 500 ms of quiet. */
export const FILTER_SUBMIT_MS = 500;
/** The filters' "all" choice; never sent to the server. */
export const ALL = 'all';

const useStyles = makeStyles({
  bar: { display: 'flex', flexWrap: 'wrap', alignItems: 'flex-end', gap: tokens.spacingHorizontalM, marginBottom: tokens.spacingVerticalM },
  select: { minWidth: '140px' },
  search: { minWidth: '220px', flex: '1 1 220px', maxWidth: '360px' },
});

interface Choice {
  value: string;
  label: string;
}

function FilterDropdown({ label, value, choices, onChange, loading }: { label: string; value: string; choices: Choice[]; onChange: (v: string) => void; loading?: boolean }) {
  const s = useStyles();
  const all: Choice[] = [{ value: ALL, label: 'All' }, ...choices];
  return (
    <Field label={label}>
      <Dropdown
        className={s.select}
        value={all.find((c) => c.value === value)?.label ?? (loading ? 'Loading…' : value)}
        selectedOptions={[value]}
        onOptionSelect={(_, d) => d.optionValue && onChange(d.optionValue)}
        listbox={{ style: { maxHeight: '320px' } }}
      >
        {all.map((c) => (
          <Option key={c.value} value={c.value}>{c.label}</Option>
        ))}
      </Dropdown>
    </Field>
  );
}

export interface IncidentFilterBarProps {
  /** The filters the URL holds (`all` for no filter). */
  value: IncidentFilters;
  onSubmit: (next: IncidentFilters) => void;
}

/** Severity, status (default open), owner, type, component and search; changes apply after 500 ms of quiet. */
export function IncidentFilterBar({ value, onSubmit }: IncidentFilterBarProps) {
  const s = useStyles();
  const [draft, setDraft] = useState(value);
  const people = usePeopleSearch('');
  const components = useEvidenceComponents();
  const key = JSON.stringify(value);

  // the URL changed (Back, a shared link): show what it says
  useEffect(() => setDraft(value), [key]); // eslint-disable-line react-hooks/exhaustive-deps
  // the latest handler, so a re-render of the page (a refetch) does not restart the 500 ms wait
  const submit = useRef(onSubmit);
  submit.current = onSubmit;
  useEffect(() => {
    if (JSON.stringify(draft) === key) return;
    const t = setTimeout(() => submit.current(draft), FILTER_SUBMIT_MS);
    return () => clearTimeout(t);
  }, [draft, key]);

  const set = (patch: Partial<IncidentFilters>) => setDraft((d) => ({ ...d, ...patch }));
  const words = (values: readonly string[]) => values.map((v) => ({ value: v, label: humanize(v) }));
  const dirty = (Object.keys(draft) as (keyof IncidentFilters)[]).some((k) => draft[k] !== (k === 'status' ? 'open' : k === 'search' ? '' : ALL));

  return (
    <div className={s.bar} role="search" aria-label="Incident filters">
      <FilterDropdown label="Severity" value={draft.severity} choices={words(INCIDENT_SEVERITIES)} onChange={(severity) => set({ severity })} />
      <FilterDropdown label="Status" value={draft.status} choices={words(INCIDENT_STATUSES)} onChange={(status) => set({ status })} />
      <FilterDropdown
        label="Owner"
        value={draft.owner}
        loading={people.isLoading}
        choices={(people.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
        onChange={(owner) => set({ owner })}
      />
      <FilterDropdown label="Type" value={draft.type} choices={words(INCIDENT_TYPES)} onChange={(type) => set({ type })} />
      <FilterDropdown
        label="Component"
        value={draft.component}
        loading={components.isLoading}
        choices={(components.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
        onChange={(component) => set({ component })}
      />
      <Field label="Search" className={s.search}>
        <SearchBox placeholder="Search by title" value={draft.search} onChange={(_, d) => set({ search: d.value })} />
      </Field>
      {dirty && (
        <Button
          appearance="subtle"
          icon={<Dismiss16Regular />}
          onClick={() => setDraft({ severity: ALL, status: 'open', owner: ALL, type: ALL, component: ALL, search: '' })}
        >
          Reset
        </Button>
      )}
    </div>
  );
}
