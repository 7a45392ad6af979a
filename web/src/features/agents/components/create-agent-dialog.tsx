import { useWatch } from 'react-hook-form';
import { MessageBar, MessageBarBody } from '@fluentui/react-components';
import { FormDialog, useZodForm } from '../../../components/forms/form-dialog';
import { SelectField, SwitchField, TextField } from '../../../components/forms/form-fields';
import { errorMessage } from '../../../lib/api-client';
import { useGenerateAgent } from '../api';
import { AgentCreateInput, CREATE_DEFAULTS, SCRAPE_INTERVALS, toProperties, type AgentCreateValues, type GeneratedAgent } from '../model';
import { PropertiesField } from './properties-field';

const INTERVAL_OPTIONS = SCRAPE_INTERVALS.map((v) => ({ value: v, label: v }));

/** The Kubernetes and Telemetry options: what the install snippets configure (not stored on the agent). */
function InstallOptions() {
  const [kubernetes, telemetry] = useWatch<AgentCreateInput>({ name: ['kubernetesEnabled', 'telemetryEnabled'] }) as [boolean, boolean];
  return (
    <>
      <SwitchField<AgentCreateInput> name="kubernetesEnabled" label="Kubernetes" hint="Scrape the agent's cluster into the catalog" />
      {kubernetes && <SelectField<AgentCreateInput> name="scrapeInterval" label="Scrape Interval" options={INTERVAL_OPTIONS} />}
      <SwitchField<AgentCreateInput> name="telemetryEnabled" label="Telemetry" hint="Send push lag and buffer depth with every ping" />
      {telemetry && <TextField<AgentCreateInput> name="topologyName" label="Topology Name" required />}
    </>
  );
}

export interface CreateAgentDialogProps {
  onClose: () => void;
  /** The agent exists now: the caller shows the install dialog with its token (shown this once). */
  onCreated: (agent: GeneratedAgent, values: AgentCreateValues) => void;
}

/** "Create new agent": Name, Properties, Kubernetes and Telemetry options; Next generates the agent and its token. */
export function CreateAgentDialog({ onClose, onCreated }: CreateAgentDialogProps) {
  const form = useZodForm(AgentCreateInput, CREATE_DEFAULTS);
  const generate = useGenerateAgent();
  const submit = (values: AgentCreateValues) =>
    generate.mutate(
      { name: values.name, properties: toProperties(values.properties) },
      { onSuccess: (agent) => onCreated(agent, values) },
    );
  return (
    <FormDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title="Create new agent"
      size="medium"
      form={form}
      onSubmit={submit}
      submitLabel="Next"
      busy={generate.isPending}
      busyLabel="Creating…"
      initialFocus="name"
    >
      {generate.error && (
        <MessageBar intent="error" role="alert">
          <MessageBarBody>{errorMessage(generate.error)}</MessageBarBody>
        </MessageBar>
      )}
      <TextField<AgentCreateInput> name="name" label="Name" required />
      <PropertiesField />
      <InstallOptions />
    </FormDialog>
  );
}
