import { useState } from 'react';
import { Button, Checkbox, Field, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import { TimeRangePicker } from '../../../components/time-range/time-range-picker';
import { resolveTimeRange, type TimeRange } from '../../../lib/time-range';
import { downloadSnapshot } from '../api-sidebar';
import type { ComponentDialogProps } from './types';

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  error: { color: tokens.colorPaletteRedForeground1 },
});

/** A recent window by default (one of the picker's presets, so it shows as chosen). */
export const SNAPSHOT_DEFAULT_RANGE: TimeRange = { type: 'relative', display: 'Last 3 hours', from: 'now-3h', to: 'now' };

/** The snapshot's query: the range as instants (ISO), and whether related components come along. */
export function snapshotQuery(range: TimeRange, related: boolean, now = new Date()) {
  const { from, to } = resolveTimeRange(range, now);
  return { start: from.toISOString(), end: to.toISOString(), related };
}

/** Saves a blob under a name, the browser's own download. */
function saveBlob(blob: Blob, filename: string) {
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // the click has handed the blob to the download; revoking later keeps slow browsers from losing it
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/** "Download {name} snapshot": a zip of the component (and related ones) over a time range. */
export function SnapshotDialog({ open, onClose, component }: ComponentDialogProps) {
  const s = useStyles();
  const [range, setRange] = useState<TimeRange>(SNAPSHOT_DEFAULT_RANGE);
  const [related, setRelated] = useState(true);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);

  const download = async () => {
    setBusy(true);
    setFailed(false);
    try {
      const { blob, filename } = await downloadSnapshot(component.id, snapshotQuery(range, related));
      saveBlob(blob, filename);
      onClose();
    } catch {
      setFailed(true);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AppDialog
      open={open}
      onOpenChange={(o) => !o && !busy && onClose()}
      title={`Download ${component.name} snapshot`}
      size="small"
      actions={
        <>
          <Button onClick={onClose} disabled={busy}>Cancel</Button>
          <Button appearance="primary" disabledFocusable={busy} icon={busy ? <Spinner size="tiny" /> : undefined} onClick={() => void download()}>
            {busy ? 'Downloading...' : 'Download'}
          </Button>
        </>
      }
    >
      <div className={s.body}>
        <Field label="Time Range">
          <TimeRangePicker value={range} onChange={setRange} showFuture={false} label="Snapshot time range" />
        </Field>
        <Checkbox label="Include related components" checked={related} onChange={(_, d) => setRelated(!!d.checked)} />
        {failed && <Text role="alert" className={s.error}>Error downloading file</Text>}
      </div>
    </AppDialog>
  );
}
