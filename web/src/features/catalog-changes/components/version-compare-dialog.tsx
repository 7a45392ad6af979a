import { lazy, Suspense, useMemo } from 'react';
import { Dropdown, Field, makeStyles, Option, Spinner, Text, tokens } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import { formatDateTime } from '../../../lib/format';
import { useConfigHistory } from '../api';
import { findVersion, rebuildVersions, versionText, type ConfigVersion } from '../versions';
import { changeErrorMessage } from './change-error';

// Monaco loads with the first comparison, never with the changes list
const MonacoDiff = lazy(() => import('./monaco-diff').then((m) => ({ default: m.MonacoDiff })));

const useStyles = makeStyles({
  pickers: { display: 'flex', gap: tokens.spacingHorizontalL, marginBottom: tokens.spacingVerticalM, flexWrap: 'wrap' },
  picker: { minWidth: '260px' },
  fallback: { height: '60vh', display: 'flex', alignItems: 'center', justifyContent: 'center' },
});

function versionLabel(v: ConfigVersion, i: number): string {
  if (i === 0) return `Current${v.at ? ` (${formatDateTime(v.at)})` : ''}`;
  return v.at ? formatDateTime(v.at) : 'Before the oldest change';
}

export interface VersionCompareDialogProps {
  configId: string | null;
  /** The two version ids (`?compare=<a>..<b>`), older on the left. */
  pair: [string, string] | null;
  onChange: (pair: [string, string]) => void;
  onClose: () => void;
}

/**
 * Any two versions of an item side by side (flanksource-ui#259): the versions are rebuilt in the browser from the
 * current config and the stored merge patches; the pickers choose among every version the patches reach.
 */
export function VersionCompareDialog({ configId, pair, onChange, onClose }: VersionCompareDialogProps) {
  const s = useStyles();
  const history = useConfigHistory(pair ? configId : null);
  const versions = useMemo(
    () => (history.data?.item ? rebuildVersions(history.data.item.config, history.data.changes) : []),
    [history.data],
  );
  const left = pair ? findVersion(versions, pair[0]) : null;
  const right = pair ? findVersion(versions, pair[1]) : null;
  const name = history.data?.item?.name ?? '';

  const picker = (label: string, chosen: ConfigVersion | null, set: (id: string) => void) => (
    <Field label={label}>
      <Dropdown
        className={s.picker}
        value={chosen ? versionLabel(chosen, versions.indexOf(chosen)) : 'Choose a version'}
        selectedOptions={chosen ? [chosen.id] : []}
        onOptionSelect={(_, d) => d.optionValue && set(d.optionValue)}
      >
        {versions.map((v, i) => (
          <Option key={v.id} value={v.id}>{versionLabel(v, i)}</Option>
        ))}
      </Dropdown>
    </Field>
  );

  return (
    <AppDialog open={!!pair && !!configId} onOpenChange={(open) => !open && onClose()} title={`Compare versions${name ? ` · ${name}` : ''}`} size="full">
      {history.isLoading ? (
        <Spinner size="small" label="Loading versions…" />
      ) : history.error ? (
        <Text role="alert">{changeErrorMessage(history.error)}</Text>
      ) : !history.data?.item ? (
        <Text>Details not found</Text>
      ) : (
        <>
          <div className={s.pickers}>
            {picker('Older', left, (id) => onChange([id, pair![1]]))}
            {picker('Newer', right, (id) => onChange([pair![0], id]))}
          </div>
          {left && right ? (
            <Suspense fallback={<div className={s.fallback}><Spinner size="small" label="Loading editor…" /></div>}>
              <MonacoDiff original={versionText(left.config)} modified={versionText(right.config)} />
            </Suspense>
          ) : (
            <Text role="alert">These versions are not among the item's stored changes: choose two above.</Text>
          )}
        </>
      )}
    </AppDialog>
  );
}
