import { useState } from 'react';
import { Button } from '@fluentui/react-components';
import { ArrowLeft20Regular } from '@fluentui/react-icons';
import type { GitOpsChart } from '@contracts/gitops';
import { AppDialog } from '../../../components/app-dialog';
import { GitOpsInstall } from './gitops-install';
import { IntegrationTiles, type DirectTarget } from './integration-tiles';

export interface AddIntegrationDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** 'Add Directly': the resource's own editor for a new one (/settings/topologies/new …). */
  onDirect: (target: DirectTarget) => void;
  logsEnabled: boolean;
}

/** Add Integration: tiles first; a GitOps tile then shows its install form, Back returns to the tiles. */
export function AddIntegrationDialog({ open, onOpenChange, onDirect, logsEnabled }: AddIntegrationDialogProps) {
  const [chart, setChart] = useState<GitOpsChart | null>(null);
  const close = (next: boolean) => {
    onOpenChange(next);
    // the next opening starts from the tiles again
    if (!next) setChart(null);
  };
  return (
    <AppDialog
      open={open}
      onOpenChange={close}
      title={chart ? `Add ${chart.title} via GitOps` : 'Add Integration'}
      size="large"
      expandable
      actions={
        chart ? (
          <>
            <Button appearance="secondary" icon={<ArrowLeft20Regular />} onClick={() => setChart(null)}>
              Back
            </Button>
            <Button appearance="primary" onClick={() => close(false)}>
              Close
            </Button>
          </>
        ) : undefined
      }
    >
      {chart ? (
        // keyed by chart: another tile starts from the defaults again
        <GitOpsInstall key={chart.chart} chart={chart} />
      ) : (
        <IntegrationTiles onGitOps={setChart} onDirect={(t) => { close(false); onDirect(t); }} logsEnabled={logsEnabled} />
      )}
    </AppDialog>
  );
}
