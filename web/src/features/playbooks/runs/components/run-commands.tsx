import { useState } from 'react';
import { useLocation } from 'wouter';
import { Button, makeStyles, tokens } from '@fluentui/react-components';
import {
  ArrowClockwise20Regular, ArrowDownload20Regular, ArrowReset20Regular, Checkmark20Regular, Dismiss20Regular, Options20Regular,
} from '@fluentui/react-icons';
import { ConfirmDialog } from '../../../../components/dialogs/confirm-dialog';
import { RunPlaybookDialog } from '../../../../components/playbooks/run-playbook-dialog';
import { errorMessage } from '../../../../lib/api-client';
import { toast } from '../../../../lib/toast';
import { fetchRunOutput, useRunCommands, type RunDetail } from '../api-runs';
import { isFinalRun, logsFileName, logsFileText, mayApprove, mergeLines, rerunParams, type LogLine, type StepAction } from '../model';
import { ParamsDialog } from './params-dialog';

const useStyles = makeStyles({
  bar: { display: 'flex', flexWrap: 'wrap', gap: tokens.spacingHorizontalS },
});

/** Saves `text` as a file through a temporary object URL. */
function saveTextFile(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  try {
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 1_000);
  }
}

export interface RunCommandsProps {
  run: RunDetail;
  steps: StepAction[];
  lines: ReadonlyMap<string, LogLine[]>;
  /** playbook_runs write: cancel, re-run, retry. */
  canWrite: boolean;
  user: { id: string; email: string | null };
}

/** Cancel, Approve, Re-run, Retry from failed, Params and Download logs, each shown to whom it concerns. */
export function RunCommands({ run, steps, lines, canWrite, user }: RunCommandsProps) {
  const s = useStyles();
  const [, navigate] = useLocation();
  const commands = useRunCommands(run.id);
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [rerunning, setRerunning] = useState(false);
  const [paramsOpen, setParamsOpen] = useState(false);
  const final = isFinalRun(run.status);
  const playbookName = run.playbooks?.title || run.playbooks?.name || run.playbook_id;
  const failedAction = steps.some((st) => st.status === 'failed' && st.id !== 'initialization');
  const resource = run.check_id ? { check_id: run.check_id } : run.config_id ? { config_id: run.config_id } : run.component_id ? { component_id: run.component_id } : null;

  const [downloading, setDownloading] = useState(false);
  // every action's stored lines and result, as the server has them now, plus what the socket pushed since
  const download = async () => {
    setDownloading(true);
    try {
      const stored = await fetchRunOutput(run.id);
      const all = steps.map((st) => ({ ...st, result: stored.results.get(st.id) ?? st.result }));
      const merged = new Map<string, LogLine[]>();
      for (const st of steps) merged.set(st.id, mergeLines(stored.lines.get(st.id) ?? [], lines.get(st.id) ?? []));
      saveTextFile(logsFileName(playbookName, run.id), logsFileText({ id: run.id, status: run.status, playbookName, error: run.error }, all, merged));
      toast.success('Downloaded logs');
    } catch {
      toast.error('Failed to download logs');
    } finally {
      setDownloading(false);
    }
  };

  return (
    <div className={s.bar} role="toolbar" aria-label="Run actions">
      {canWrite && !final && (
        <Button icon={<Dismiss20Regular />} onClick={() => setConfirmCancel(true)} disabled={commands.cancel.isPending}>
          Cancel
        </Button>
      )}
      {run.status === 'pending_approval' && mayApprove(run.spec, user) && (
        <Button
          appearance="primary"
          icon={<Checkmark20Regular />}
          disabled={commands.approve.isPending}
          onClick={() =>
            commands.approve.mutate(undefined, {
              onSuccess: () => toast.success('Playbook run approved'),
              onError: (err) => toast.error(errorMessage(err)),
            })
          }
        >
          {commands.approve.isPending ? 'Approving...' : 'Approve'}
        </Button>
      )}
      {canWrite && (
        <Button icon={<ArrowClockwise20Regular />} onClick={() => setRerunning(true)}>
          Re-run
        </Button>
      )}
      {canWrite && final && failedAction && (
        <Button
          icon={<ArrowReset20Regular />}
          disabled={commands.retry.isPending}
          onClick={() =>
            commands.retry.mutate(undefined, {
              onSuccess: (r) => navigate(`/playbooks/runs/${encodeURIComponent(r.run_id)}`),
              onError: (err) => toast.error(errorMessage(err)),
            })
          }
        >
          Retry from failed
        </Button>
      )}
      <Button icon={<Options20Regular />} onClick={() => setParamsOpen(true)}>
        Params
      </Button>
      <Button icon={<ArrowDownload20Regular />} onClick={() => void download()} disabled={downloading}>
        Download logs
      </Button>

      <ConfirmDialog
        open={confirmCancel}
        title="Cancel run"
        description={`Cancel this run of ${playbookName}? A running action is stopped.`}
        confirmLabel="Cancel run"
        cancelLabel="Keep running"
        danger
        busy={commands.cancel.isPending}
        busyLabel="Cancelling..."
        onCancel={() => setConfirmCancel(false)}
        onConfirm={() =>
          commands.cancel.mutate(undefined, {
            onSuccess: () => {
              setConfirmCancel(false);
              toast.success('Playbook run cancelled');
            },
            onError: (err) => toast.error(errorMessage(err)),
          })
        }
      />
      <ParamsDialog open={paramsOpen} onOpenChange={setParamsOpen} parameters={run.parameters} spec={run.spec} />
      {rerunning && (
        <RunPlaybookDialog
          open
          onClose={() => setRerunning(false)}
          playbook={{ id: run.playbook_id, name: run.playbooks?.name ?? playbookName, title: run.playbooks?.title ?? null, spec: run.spec ?? null }}
          resource={resource}
          initialParams={rerunParams(run.parameters, run.spec)}
        />
      )}
    </div>
  );
}
