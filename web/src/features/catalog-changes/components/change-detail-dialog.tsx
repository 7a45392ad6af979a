import { Button, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import { CodeViewer } from '../../../components/code/code-viewer';
import { Age } from '../../../components/status/age';
import { SeverityBadge } from '../../../components/status/status-badge';
import { formatDateTime } from '../../../lib/format';
import { useChangeDetail } from '../api';
import { changeErrorMessage } from './change-error';

const useStyles = makeStyles({
  facts: { display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: `${tokens.spacingVerticalXS} ${tokens.spacingHorizontalL}`, marginBottom: tokens.spacingVerticalM },
  label: { color: tokens.colorNeutralForeground3 },
  section: { marginTop: tokens.spacingVerticalM, display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS },
  heading: { fontWeight: tokens.fontWeightSemibold },
  diff: {
    margin: 0,
    padding: tokens.spacingHorizontalS,
    maxHeight: '320px',
    overflow: 'auto',
    fontFamily: tokens.fontFamilyMonospace,
    fontSize: tokens.fontSizeBase200,
    lineHeight: '18px',
    backgroundColor: tokens.colorNeutralBackground2,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusMedium,
  },
  add: { color: tokens.colorPaletteGreenForeground1, display: 'block' },
  del: { color: tokens.colorPaletteRedForeground1, display: 'block' },
  hunk: { color: tokens.colorBrandForeground1, display: 'block' },
  ctx: { display: 'block' },
  none: { color: tokens.colorNeutralForeground3 },
});

const isEmpty = (v: unknown) =>
  v === undefined || v === null || v === '' || (typeof v === 'object' && !Object.keys(v as object).length);

/** A unified diff, its added and removed lines coloured. */
function UnifiedDiff({ diff }: { diff: string }) {
  const s = useStyles();
  return (
    <pre className={s.diff} aria-label="Diff" tabIndex={0}>
      {diff.split('\n').map((line, i) => {
        const cls = line.startsWith('@@') ? s.hunk : line.startsWith('+') ? s.add : line.startsWith('-') ? s.del : s.ctx;
        return <span key={i} className={cls}>{line || ' '}</span>;
      })}
    </pre>
  );
}

export interface ChangeDetailDialogProps {
  changeId: string | null;
  onClose: () => void;
  /** Opens the side-by-side comparison of the versions before and after this change, when it has a diff. */
  onCompare?: (changeId: string, configId: string) => void;
}

/** A change: summary, facts, details, the unified diff and the merge patches; a failed load says why. */
export function ChangeDetailDialog({ changeId, onClose, onCompare }: ChangeDetailDialogProps) {
  const s = useStyles();
  const detail = useChangeDetail(changeId);
  const c = detail.data;
  const title = c ? `${c.change_type ?? 'Change'}${c.config?.name ? ` · ${c.config.name}` : ''}` : 'Change';
  return (
    <AppDialog
      open={!!changeId}
      onOpenChange={(open) => !open && onClose()}
      title={title}
      size="large"
      expandable
      actions={
        c && c.change_type === 'diff' && onCompare ? (
          <Button appearance="primary" onClick={() => onCompare(c.id, c.config_id)}>Compare versions</Button>
        ) : undefined
      }
    >
      {detail.isLoading ? (
        <Spinner size="small" label="Loading change…" />
      ) : detail.error ? (
        <Text role="alert">{changeErrorMessage(detail.error)}</Text>
      ) : !c ? (
        <Text className={s.none}>No details found</Text>
      ) : (
        <>
          <div className={s.facts}>
            <span className={s.label}>Summary</span>
            <span>{c.summary || '—'}</span>
            <span className={s.label}>Config</span>
            <span>{c.config?.name ?? c.config_id}{c.config?.type ? ` (${c.config.type})` : ''}</span>
            <span className={s.label}>Severity</span>
            <span>{c.severity ? <SeverityBadge severity={c.severity} /> : '—'}</span>
            <span className={s.label}>Source</span>
            <span>{c.source || '—'}</span>
            <span className={s.label}>Created By</span>
            <span>{c.external_created_by || c.created_by || '—'}</span>
            <span className={s.label}>Created</span>
            <span title={formatDateTime(c.created_at)}><Age value={c.created_at} /> · {formatDateTime(c.created_at)}</span>
            {c.first_observed && c.first_observed !== c.created_at && (
              <>
                <span className={s.label}>First observed</span>
                <span>{formatDateTime(c.first_observed)} (×{c.count ?? 1})</span>
              </>
            )}
          </div>
          {!isEmpty(c.diff) && (
            <section className={s.section} aria-label="Diff">
              <Text className={s.heading}>Diff</Text>
              <UnifiedDiff diff={c.diff!} />
            </section>
          )}
          {!isEmpty(c.details) && (
            <section className={s.section} aria-label="Details">
              <Text className={s.heading}>Details</Text>
              <CodeViewer code={c.details as object} language="json" selectionParam={false} maxHeight="320px" label="Details" />
            </section>
          )}
          {!isEmpty(c.patches) && (
            <section className={s.section} aria-label="Patches">
              <Text className={s.heading}>Patches</Text>
              <CodeViewer code={c.patches as object} language="json" selectionParam={false} maxHeight="320px" label="Patches" />
            </section>
          )}
        </>
      )}
    </AppDialog>
  );
}
