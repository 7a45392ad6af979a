import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Button, makeStyles, MessageBar, MessageBarActions, MessageBarBody, MessageBarTitle, Spinner, tokens } from '@fluentui/react-components';
import { Dismiss20Regular, Play20Regular } from '@fluentui/react-icons';
import { JobStatusBadge } from '../../../components/status/job-status';
import { formatDuration } from '../../../lib/format';
import { resourceKeys } from '../../settings-resources/api';
import { SCRAPERS, useRun, useRunScraper } from '../api';
import { errorsOf, scrapeSummaryOf } from '../job-summary';

const useStyles = makeStyles({
  title: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalS },
  errors: { margin: `${tokens.spacingVerticalXS} 0 0`, paddingInlineStart: tokens.spacingHorizontalXL },
});

/** "Run now" (admin and editor: the page shows it to writers only; the server checks too). */
export function RunNowButton({ run }: { run: ReturnType<typeof useRunScraper> }) {
  return (
    <Button appearance="primary" icon={run.isPending ? <Spinner size="tiny" /> : <Play20Regular />} disabled={run.isPending} onClick={() => run.mutate()}>
      {run.isPending ? 'Starting…' : 'Run now'}
    </Button>
  );
}

const intentOf = (status: string) => (status === 'SUCCESS' ? 'success' : status === 'FAILED' ? 'error' : status === 'RUNNING' ? 'info' : 'warning');

/**
 * What the last "Run now" is doing: running (its job row, refreshed live), then its status, what it did per config
 * type and its errors. A refusal (403, 409 already running, 503 not the leader) is said as the server says it.
 */
export function RunProgress({ run }: { run: ReturnType<typeof useRunScraper> }) {
  const s = useStyles();
  const job = useRun(run.data?.job_history_id);
  const qc = useQueryClient();
  const finished = !!job.data && job.data.status !== 'RUNNING';
  // the scraper's Last Run and status come from its view, which a job row's change does not refresh by itself
  useEffect(() => {
    if (finished) void qc.invalidateQueries({ queryKey: resourceKeys.all(SCRAPERS.table) });
  }, [finished, qc]);
  if (run.isIdle || run.isPending) return null;
  if (run.isError) {
    return (
      <MessageBar intent="error" role="alert">
        <MessageBarBody>
          <MessageBarTitle>The scraper did not run</MessageBarTitle>
          {run.error.message}
        </MessageBarBody>
        <MessageBarActions containerAction={<Button appearance="transparent" aria-label="Dismiss" icon={<Dismiss20Regular />} onClick={() => run.reset()} />} />
      </MessageBar>
    );
  }
  // the job row once read (live), else the status the run answered with
  const status = job.data?.status ?? run.data.status;
  const running = status === 'RUNNING';
  const { types, total } = scrapeSummaryOf(job.data?.details);
  const errors = errorsOf(job.data?.details);
  return (
    <MessageBar intent={intentOf(status)} layout="multiline" role="status" aria-label="Run now">
      <MessageBarBody>
        <MessageBarTitle>
          <span className={s.title}>
            {running ? <Spinner size="extra-tiny" /> : null}
            {running ? 'Running…' : 'Run finished'}
            <JobStatusBadge status={status} />
            {!running && job.data?.duration_millis != null && ` in ${formatDuration(job.data.duration_millis)}`}
          </span>
        </MessageBarTitle>
        {!running && types.length > 0 && (
          <div>
            {total.added} added, {total.updated} updated, {total.unchanged} unchanged, {total.changes} changes
            {types.length > 1 && ` over ${types.length} config types`}
          </div>
        )}
        {!running && !types.length && !errors.length && job.data && <div>No items found.</div>}
        {errors.length > 0 && (
          <ul className={s.errors} aria-label="Run errors">
            {errors.slice(0, 5).map((e, i) => <li key={i}>{e}</li>)}
            {errors.length > 5 && <li>and {errors.length - 5} more (see Job History)</li>}
          </ul>
        )}
      </MessageBarBody>
      {!running && (
        <MessageBarActions containerAction={<Button appearance="transparent" aria-label="Dismiss" icon={<Dismiss20Regular />} onClick={() => run.reset()} />} />
      )}
    </MessageBar>
  );
}
