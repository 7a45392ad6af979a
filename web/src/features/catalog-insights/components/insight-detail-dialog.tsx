import { useEffect } from 'react';
import { makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import { CodeViewer } from '../../../components/code/code-viewer';
import { SeverityBadge } from '../../../components/status/status-badge';
import { errorMessage } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format';
import { toast } from '../../../lib/toast';
import { useInsight } from '../api';
import { plainMessage } from '../model';

const useStyles = makeStyles({
  facts: { display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: `${tokens.spacingVerticalXS} ${tokens.spacingHorizontalL}`, marginBottom: tokens.spacingVerticalM },
  label: { color: tokens.colorNeutralForeground3 },
  message: { whiteSpace: 'pre-wrap', wordBreak: 'break-word', marginBottom: tokens.spacingVerticalM, display: 'block' },
  heading: { fontWeight: tokens.fontWeightSemibold, display: 'block', marginBottom: tokens.spacingVerticalXS },
});

/** An insight: its facts, its message as plain text (500 characters at most) and the analysis. Errors: a toast. */
export function InsightDetailDialog({ insightId, onClose }: { insightId: string | null; onClose: () => void }) {
  const s = useStyles();
  const insight = useInsight(insightId);
  const i = insight.data;
  useEffect(() => {
    // spec 001 §8: the insight's error is a toast, and the dialog closes
    if (insight.error) {
      toast.error(errorMessage(insight.error));
      onClose();
    }
  }, [insight.error]); // eslint-disable-line react-hooks/exhaustive-deps
  const message = plainMessage(i?.message);
  return (
    <AppDialog open={!!insightId && !insight.error} onOpenChange={(open) => !open && onClose()} title={i ? `${i.analyzer ?? 'Insight'}${i.config?.name ? ` · ${i.config.name}` : ''}` : 'Insight'} size="large" expandable>
      {insight.isLoading ? (
        <Spinner size="small" label="Loading insight…" />
      ) : !i ? (
        <Text>No details found</Text>
      ) : (
        <>
          <div className={s.facts}>
            <span className={s.label}>Config</span>
            <span>{i.config?.name ?? i.config_id}{i.config?.type ? ` (${i.config.type})` : ''}</span>
            <span className={s.label}>Type</span>
            <span>{i.analysis_type || '—'}</span>
            <span className={s.label}>Severity</span>
            <span>{i.severity ? <SeverityBadge severity={i.severity} /> : '—'}</span>
            <span className={s.label}>Status</span>
            <span>{i.status || '—'}</span>
            <span className={s.label}>Source</span>
            <span>{i.source || '—'}</span>
            <span className={s.label}>First observed</span>
            <span>{formatDateTime(i.first_observed ?? null)}</span>
            <span className={s.label}>Last observed</span>
            <span>{formatDateTime(i.last_observed ?? null)}</span>
          </div>
          {i.summary && <Text className={s.message}>{i.summary}</Text>}
          {message && (
            <section aria-label="Message">
              <Text className={s.heading}>Message</Text>
              <Text className={s.message} data-testid="insight-message">{message}</Text>
            </section>
          )}
          {i.analysis != null && typeof i.analysis === 'object' && Object.keys(i.analysis).length > 0 && (
            <section aria-label="Analysis">
              <Text className={s.heading}>Analysis</Text>
              <CodeViewer code={i.analysis} language="json" selectionParam={false} maxHeight="320px" label="Analysis" />
            </section>
          )}
        </>
      )}
    </AppDialog>
  );
}
