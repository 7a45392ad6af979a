import { useMemo, type ReactNode } from 'react';
import { makeStyles, Tab, TabList, Text, tokens } from '@fluentui/react-components';
import { stringify } from 'yaml';
import { CodeViewer } from '../../../components/code/code-viewer';
import { parseLineSelection } from '../../../components/code/highlight';
import { useSearchPatch } from '../../../lib/url-state';
import type { ConfigDetail } from '../api';
import { selectedLines } from '../model';

const useStyles = makeStyles({
  bar: { display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: tokens.spacingHorizontalM, marginBottom: tokens.spacingVerticalS, flexWrap: 'wrap' },
  actions: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS },
  hint: { color: tokens.colorNeutralForeground3 },
});

export type ConfigFormat = 'json' | 'yaml';

/** What the "attach to incident" action receives: the item and the selected lines' text by number. */
export interface SelectedConfigLines {
  configId: string;
  name: string;
  type: string | null;
  format: ConfigFormat;
  /** The URL's `selected` value ("3-5,8"). */
  selected: string;
  lines: Record<string, string>;
}

/** The config as the viewer shows it: a string stays as stored; JSON is pretty-printed or turned into YAML. */
export function configText(config: unknown, format: ConfigFormat): string {
  if (config === null || config === undefined) return '';
  let value = config;
  if (typeof config === 'string') {
    try {
      value = JSON.parse(config);
    } catch {
      return config;
    }
  }
  return format === 'yaml' ? stringify(value, { lineWidth: 0 }) : JSON.stringify(value, null, 2);
}

export interface ConfigTabProps {
  item: ConfigDetail;
  /** The attach-to-incident action for the selected lines, when the user may link to incidents. */
  renderAttach?: (selection: SelectedConfigLines) => ReactNode;
}

/**
 * The Config tab: the item's config highlighted as JSON or YAML (`format` in the URL); line numbers select lines
 * (click, Shift for a range, Ctrl for one more) kept in `selected`; the selection can be attached to an incident.
 */
export function ConfigTab({ item, renderAttach }: ConfigTabProps) {
  const s = useStyles();
  const [params, patch] = useSearchPatch();
  const format: ConfigFormat = params.get('format') === 'yaml' ? 'yaml' : 'json';
  const text = useMemo(() => configText(item.config, format), [item.config, format]);
  const raw = params.get('selected') ?? '';
  const lines = useMemo(() => selectedLines(text, parseLineSelection(raw)), [text, raw]);
  const count = Object.keys(lines).length;
  return (
    <div>
      <div className={s.bar}>
        <TabList
          size="small"
          selectedValue={format}
          aria-label="Format"
          // the line numbers differ between the two formats: a switch clears the selection
          onTabSelect={(_, d) => patch({ format: d.value === 'yaml' ? 'yaml' : undefined, selected: undefined })}
        >
          <Tab value="json">JSON</Tab>
          <Tab value="yaml">YAML</Tab>
        </TabList>
        <div className={s.actions}>
          {count === 0 && text && <Text size={200} className={s.hint}>Select lines by their numbers to attach them to an incident</Text>}
          {count > 0 && renderAttach?.({ configId: item.id, name: item.name ?? item.id, type: item.type, format, selected: raw, lines })}
        </div>
      </div>
      {text ? (
        <CodeViewer code={text} language={format} label={`${item.name ?? 'Config'} (${format.toUpperCase()})`} maxHeight="calc(100vh - 260px)" />
      ) : (
        <Text>No config stored for this item.</Text>
      )}
    </div>
  );
}
