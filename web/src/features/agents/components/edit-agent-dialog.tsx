import { useState } from 'react';
import { Button, makeStyles, MessageBar, MessageBarBody, Spinner, tokens } from '@fluentui/react-components';
import { Delete20Regular } from '@fluentui/react-icons';
import { AppDialog } from '../../../components/app-dialog';
import { FormDialog, useZodForm } from '../../../components/forms/form-dialog';
import { TextField } from '../../../components/forms/form-fields';
import { LabelChips } from '../../../components/status/label-chips';
import { errorMessage } from '../../../lib/api-client';
import { useAgent, useUpdateAgent } from '../api';
import { AgentEditInput, toProperties, toRows, type AgentSummary } from '../model';
import { useNow } from '../use-now';
import { AgentStatusBadge } from './agent-columns';
import { AgentTimeline } from './agent-timeline';
import { DeleteAgentFlow } from './delete-agent-flow';
import { PropertiesField } from './properties-field';

const useStyles = makeStyles({
  head: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS },
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
});

function EditForm({ agent, onClose }: { agent: AgentSummary; onClose: () => void }) {
  const form = useZodForm(AgentEditInput, { name: agent.name, properties: toRows(agent.properties as Record<string, unknown>) });
  const update = useUpdateAgent();
  const now = useNow();
  const [deleting, setDeleting] = useState(false);
  if (deleting) return <DeleteAgentFlow agent={agent} onCancel={() => setDeleting(false)} onDeleted={onClose} />;
  return (
    <FormDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title="Edit agent"
      size="medium"
      form={form}
      submitLabel="Save"
      busy={update.isPending}
      onSubmit={(v) => update.mutate({ id: agent.id, properties: toProperties(v.properties) }, { onSuccess: onClose })}
      secondaryActions={
        <Button appearance="subtle" icon={<Delete20Regular />} onClick={() => setDeleting(true)}>
          Delete
        </Button>
      }
    >
      <TextField<AgentEditInput> name="name" label="Name" disabled hint="An agent's name cannot change" />
      <div>
        <AgentStatusBadge lastSeen={agent.last_seen} now={now} />
      </div>
      <PropertiesField />
      <AgentTimeline agentId={agent.id} now={now} />
    </FormDialog>
  );
}

function AgentDetails({ agent, onClose }: { agent: AgentSummary; onClose: () => void }) {
  const s = useStyles();
  const now = useNow();
  return (
    <AppDialog open onOpenChange={(open) => !open && onClose()} title={agent.name} size="medium">
      <div className={s.body}>
        <div className={s.head}>
          <AgentStatusBadge lastSeen={agent.last_seen} now={now} />
        </div>
        <LabelChips labels={Object.fromEntries(toRows(agent.properties as Record<string, unknown>).map((r) => [r.key, r.value]))} limit={20} />
        <AgentTimeline agentId={agent.id} now={now} />
      </div>
    </AppDialog>
  );
}

export interface EditAgentDialogProps {
  id: string;
  canWrite: boolean;
  onClose: () => void;
}

/**
 * `?id=`: the agent's editor (Name read-only, Properties, Delete, its 24 h health) for admins and editors; the same
 * facts read-only for everyone else. No token here: it was shown once, at creation.
 */
export function EditAgentDialog({ id, canWrite, onClose }: EditAgentDialogProps) {
  const agent = useAgent(id);
  // the form starts from the agent as it is now, not from a cached copy from before the last save
  if (agent.data && agent.isFetchedAfterMount) {
    return canWrite ? <EditForm key={agent.data.id} agent={agent.data} onClose={onClose} /> : <AgentDetails agent={agent.data} onClose={onClose} />;
  }
  return (
    <AppDialog open onOpenChange={(open) => !open && onClose()} title="Agent" size="small">
      {agent.isFetching || agent.isLoading ? (
        <Spinner label="Loading agent…" />
      ) : (
        <MessageBar intent="error" role="alert">
          <MessageBarBody>{agent.error ? errorMessage(agent.error) : 'This agent no longer exists.'}</MessageBarBody>
        </MessageBar>
      )}
    </AppDialog>
  );
}
