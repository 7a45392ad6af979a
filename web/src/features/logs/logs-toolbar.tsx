import { useEffect, useRef, useState } from 'react';
import { Dropdown, Field, makeStyles, Option, SearchBox, Select, Switch, tokens } from '@fluentui/react-components';
import type { ComponentWithLogs } from './api';
import { SEARCH_DEBOUNCE_MS, TIME_PRESETS, type LogSelector } from './model';

const useStyles = makeStyles({
  bar: { display: 'flex', flexWrap: 'wrap', alignItems: 'flex-end', gap: tokens.spacingHorizontalM },
  picker: { minWidth: '220px' },
  search: { flex: 1, minWidth: '240px' },
  live: { paddingBottom: tokens.spacingVerticalXXS },
});

export interface LogsToolbarProps {
  components: ComponentWithLogs[] | undefined;
  componentsLoading: boolean;
  componentId: string;
  onComponent: (id: string) => void;
  selectors: LogSelector[] | undefined;
  selector: string;
  onSelector: (name: string) => void;
  query: string;
  /** Called 500 ms after the last keystroke, or at once on Enter. */
  onQuery: (query: string) => void;
  start: string;
  onStart: (start: string) => void;
  live: boolean;
  onLive: (live: boolean) => void;
}

/** Component, selector, search (debounced), time range and the Live switch. */
export function LogsToolbar(p: LogsToolbarProps) {
  const s = useStyles();
  const [text, setText] = useState(p.query);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const sent = useRef(p.query);

  // the URL changed under us (Back, a shared link): the box follows it
  useEffect(() => {
    if (p.query !== sent.current) {
      sent.current = p.query;
      setText(p.query);
    }
  }, [p.query]);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);

  const send = (value: string) => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    if (value === sent.current) return;
    sent.current = value;
    p.onQuery(value);
  };

  const component = p.components?.find((c) => c.id === p.componentId);
  return (
    <div className={s.bar}>
      <Field label="Component" className={s.picker}>
        <Dropdown
          placeholder={p.componentsLoading ? 'Loading…' : 'Select a component'}
          value={component?.name ?? ''}
          selectedOptions={p.componentId ? [p.componentId] : []}
          onOptionSelect={(_, d) => d.optionValue && p.onComponent(d.optionValue)}
        >
          {(p.components ?? []).map((c) => (
            <Option key={c.id} value={c.id} text={c.name}>
              {c.name}
            </Option>
          ))}
        </Dropdown>
      </Field>
      <Field label="Selector" className={s.picker}>
        <Dropdown
          placeholder={p.componentId ? 'Select a selector' : 'Choose a component first'}
          disabled={!p.componentId || !p.selectors?.length}
          value={p.selector}
          selectedOptions={p.selector ? [p.selector] : []}
          onOptionSelect={(_, d) => d.optionValue && p.onSelector(d.optionValue)}
        >
          {(p.selectors ?? []).map((sel) => (
            <Option key={sel.name} value={sel.name} text={sel.name}>
              {sel.type ? `${sel.name} (${sel.type})` : sel.name}
            </Option>
          ))}
        </Dropdown>
      </Field>
      <Field label="Search" className={s.search}>
        <SearchBox
          placeholder="Text, or /regex/"
          value={text}
          onChange={(_, d) => {
            setText(d.value);
            if (timer.current) clearTimeout(timer.current);
            // clearing the box (its × button) searches at once
            if (!d.value) send('');
            else timer.current = setTimeout(() => send(d.value), SEARCH_DEBOUNCE_MS);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') send(text);
          }}
        />
      </Field>
      <Field label="Time range">
        <Select value={p.start} onChange={(_, d) => p.onStart(d.value)}>
          {TIME_PRESETS.map((t) => (
            <option key={t.value} value={t.value}>
              {t.label}
            </option>
          ))}
        </Select>
      </Field>
      <Switch className={s.live} label="Live" checked={p.live} onChange={(_, d) => p.onLive(d.checked)} />
    </div>
  );
}
