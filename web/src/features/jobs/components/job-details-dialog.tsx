import { useState } from 'react';
import { makeStyles, Tab, TabList, Text, tokens } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import { CodeViewer } from '../../../components/code/code-viewer';
import type { JobRow } from '../api';

const useStyles = makeStyles({
  panel: { paddingTop: tokens.spacingVerticalM, minHeight: '160px' },
  errors: { margin: 0, paddingInlineStart: tokens.spacingHorizontalXL, display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
  error: { fontFamily: tokens.fontFamilyMonospace, fontSize: tokens.fontSizeBase200, whiteSpace: 'pre-wrap', wordBreak: 'break-word' },
  none: { color: tokens.colorNeutralForeground3 },
});

/** The dialog's tabs and the key of `details` each shows (the reference's names). */
const TABS = [
  { value: 'errors', label: 'Errors' },
  { value: 'scrape_summary', label: 'Scrape Summary' },
  { value: 'summary', label: 'Reconcile Summary' },
] as const;
type TabValue = (typeof TABS)[number]['value'];

const isEmpty = (v: unknown) =>
  v === undefined || v === null || v === '' || (Array.isArray(v) && !v.length) || (typeof v === 'object' && !Object.keys(v as object).length);

/** An error as a line of text: the reference stores strings, some jobs objects with a message. */
function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (e && typeof e === 'object' && 'message' in e && typeof (e as { message: unknown }).message === 'string') return (e as { message: string }).message;
  return JSON.stringify(e);
}

function Errors({ errors }: { errors: unknown }) {
  const s = useStyles();
  const list = Array.isArray(errors) ? errors : [errors];
  return (
    <ul className={s.errors} aria-label="Errors">
      {list.map((e, i) => (
        <li key={i} className={s.error}>{errorText(e)}</li>
      ))}
    </ul>
  );
}

/** 'Details for job {name}': details.errors, .scrape_summary and .summary, each 'No details found' when empty. */
export function JobDetailsDialog({ job, onClose }: { job: JobRow | null; onClose: () => void }) {
  const s = useStyles();
  const [tab, setTab] = useState<TabValue>('errors');
  const details = job?.details ?? {};
  const value = details[tab];
  return (
    <AppDialog
      open={!!job}
      onOpenChange={(open) => {
        if (!open) {
          onClose();
          setTab('errors');
        }
      }}
      title={`Details for job ${job?.name ?? ''}`}
      size="medium"
      expandable
    >
      <TabList selectedValue={tab} onTabSelect={(_, d) => setTab(d.value as TabValue)} aria-label="Job details">
        {TABS.map((t) => (
          <Tab key={t.value} value={t.value}>{t.label}</Tab>
        ))}
      </TabList>
      <div className={s.panel} role="tabpanel" aria-label={TABS.find((t) => t.value === tab)?.label}>
        {isEmpty(value) ? (
          <Text className={s.none}>No details found</Text>
        ) : tab === 'errors' ? (
          <Errors errors={value} />
        ) : (
          <CodeViewer code={value as object} language="json" selectionParam={false} label={TABS.find((t) => t.value === tab)?.label} />
        )}
      </div>
    </AppDialog>
  );
}
