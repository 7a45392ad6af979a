import { useState } from 'react';
import {
  Badge,
  Button,
  makeStyles,
  MessageBar,
  MessageBarBody,
  MessageBarTitle,
  Spinner,
  Subtitle2,
  Tab,
  TabList,
  Text,
  tokens,
} from '@fluentui/react-components';
import { CheckmarkCircle20Filled, Copy20Regular } from '@fluentui/react-icons';
import { AppDialog } from '../../../components/app-dialog';
import { errorMessage } from '../../../lib/api-client';
import { copyToClipboard } from '../../../lib/clipboard';
import { useAgent, useInstallInfo } from '../api';
import { fluxManifests, helmCommand } from '../install-snippets';
import { snippetOptions, type AgentCreateValues, type GeneratedAgent } from '../model';

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  code: { position: 'relative' },
  pre: {
    margin: 0,
    padding: tokens.spacingHorizontalM,
    paddingRight: '48px',
    maxHeight: '360px',
    overflow: 'auto',
    backgroundColor: tokens.colorNeutralBackground3,
    borderRadius: tokens.borderRadiusMedium,
    fontFamily: tokens.fontFamilyMonospace,
    fontSize: tokens.fontSizeBase200,
    whiteSpace: 'pre',
  },
  copy: { position: 'absolute', top: tokens.spacingVerticalXS, right: tokens.spacingHorizontalXS },
  status: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS },
  steps: { margin: 0, paddingLeft: tokens.spacingHorizontalXL, display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS },
});

type Method = 'flux' | 'helm';

/** A code block with its Copy button (the copy says so in a toast). */
function CodeBlock({ code, label }: { code: string; label: string }) {
  const s = useStyles();
  return (
    <div className={s.code}>
      <pre className={s.pre} aria-label={label} tabIndex={0}>
        {code}
      </pre>
      <Button className={s.copy} size="small" icon={<Copy20Regular />} aria-label={`Copy ${label}`} onClick={() => void copyToClipboard(code)} />
    </div>
  );
}

/**
 * "Waiting for the agent to connect…" until its first ping sets last_seen (an `agents` change event refetches it, and
 * it is asked again every 3 s meanwhile).
 */
function ConnectionStatus({ agentId }: { agentId: string }) {
  const s = useStyles();
  const agent = useAgent(agentId, { pollUntilSeenMs: 3_000 });
  const connected = !!agent.data?.last_seen;
  return (
    <div className={s.status} role="status" aria-live="polite">
      {connected ? (
        <Badge appearance="tint" color="success" size="large" icon={<CheckmarkCircle20Filled />}>
          Connected
        </Badge>
      ) : (
        <Spinner size="tiny" label="Waiting for the agent to connect…" />
      )}
    </div>
  );
}

export interface InstallDialogProps {
  agent: GeneratedAgent;
  values: AgentCreateValues;
  onClose: () => void;
}

/**
 * "Installation Instructions" after Create: Flux and Helm CLI for this console's chart, with the token this once,
 * Next Steps, and the agent's connection as it happens.
 */
export function InstallDialog({ agent, values, onClose }: InstallDialogProps) {
  const s = useStyles();
  const [method, setMethod] = useState<Method>('flux');
  const info = useInstallInfo(true);
  const opts = info.data ? snippetOptions(values, agent.access_token, info.data) : null;
  const agentId = agent.agent_id ?? null;

  return (
    <AppDialog open onOpenChange={(open) => !open && onClose()} title="Installation Instructions" size="large">
      <div className={s.body}>
        <MessageBar intent="warning">
          <MessageBarBody>
            <MessageBarTitle>Copy the access token now</MessageBarTitle>
            The commands below hold the agent's access token. It will not be shown again: a lost token means a new agent.
          </MessageBarBody>
        </MessageBar>
        <TabList selectedValue={method} onTabSelect={(_, d) => setMethod(d.value as Method)} aria-label="Installation method">
          <Tab value="flux">Flux</Tab>
          <Tab value="helm">Helm CLI</Tab>
        </TabList>
        {info.error ? (
          <MessageBar intent="error" role="alert">
            <MessageBarBody>{errorMessage(info.error)}</MessageBarBody>
          </MessageBar>
        ) : !opts ? (
          <Spinner size="tiny" label="Loading…" />
        ) : method === 'helm' ? (
          <CodeBlock code={helmCommand(opts)} label="Helm command" />
        ) : (
          <CodeBlock code={fluxManifests(opts)} label="Flux manifests" />
        )}
        <Subtitle2>Next Steps</Subtitle2>
        <ol className={s.steps}>
          <li>
            <Text>
              {method === 'helm'
                ? 'Run the commands against the cluster the agent will watch (helm 3.8 or later).'
                : 'Commit the manifests to the repository Flux reconciles for that cluster, or kubectl apply them.'}
            </Text>
          </li>
          <li>
            <Text>The agent pings this console every 30 s; it shows Online on the Agents page within a minute.</Text>
          </li>
          <li>
            <Text>Its health checks appear under Health with the agent's name; Tab By Agent groups them.</Text>
          </li>
        </ol>
        {agentId && <ConnectionStatus agentId={agentId} />}
      </div>
    </AppDialog>
  );
}
