import { useMemo, useState } from 'react';
import { FormProvider, useWatch } from 'react-hook-form';
import {
  Button,
  Field,
  makeStyles,
  MessageBar,
  MessageBarBody,
  Tab,
  TabList,
  Text,
  tokens,
} from '@fluentui/react-components';
import { Copy20Regular } from '@fluentui/react-icons';
import {
  fluxYaml,
  GITOPS_DEFAULTS,
  GitOpsForm,
  helmCommand,
  parseValues,
  type GitOpsChart,
} from '@contracts/gitops';
import { YamlEditor } from '../../../components/code/yaml-editor';
import { useZodForm } from '../../../components/forms/form-dialog';
import { TextField } from '../../../components/forms/form-fields';
import { copyToClipboard } from '../../../lib/clipboard';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  // start: a field without a hint must not stretch to the height of its neighbour with one
  row: { display: 'grid', gridTemplateColumns: '1fr 1fr', gap: tokens.spacingHorizontalM, alignItems: 'start' },
  snippet: {
    display: 'flex',
    flexDirection: 'column',
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusLarge,
    backgroundColor: tokens.colorNeutralBackground2,
    overflow: 'hidden',
  },
  toolbar: {
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'space-between',
    padding: `${tokens.spacingVerticalXXS} ${tokens.spacingHorizontalS} ${tokens.spacingVerticalXXS} ${tokens.spacingHorizontalM}`,
    borderBottom: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    backgroundColor: tokens.colorNeutralBackground1,
    color: tokens.colorNeutralForeground3,
  },
  pre: {
    margin: 0,
    padding: `${tokens.spacingVerticalS} ${tokens.spacingHorizontalM}`,
    fontFamily: tokens.fontFamilyMonospace,
    fontSize: tokens.fontSizeBase200,
    lineHeight: '20px',
    whiteSpace: 'pre',
    overflow: 'auto',
    maxHeight: '320px',
    ':focus-visible': { outline: `${tokens.strokeWidthThick} solid ${tokens.colorStrokeFocus2}`, outlineOffset: '-2px' },
  },
});

type OutputTab = 'flux' | 'helm';
const TAB_LABELS: Record<OutputTab, string> = { flux: 'Flux', helm: 'Helm CLI' };

/** A generated snippet with its Copy button; the text is a focusable region so keyboard users can scroll it. */
function Snippet({ label, text, copyLabel }: { label: string; text: string; copyLabel: string }) {
  const s = useStyles();
  return (
    <div className={s.snippet}>
      <div className={s.toolbar}>
        <Text size={200}>{label}</Text>
        <Button size="small" appearance="subtle" icon={<Copy20Regular />} onClick={() => void copyToClipboard(text)}>
          {copyLabel}
        </Button>
      </div>
      <pre className={s.pre} tabIndex={0} role="region" aria-label={label}>
        {text}
      </pre>
    </div>
  );
}

/**
 * The 'Add via GitOps' step: namespace, interval and chart values in, the Flux manifests and the helm command out,
 * both from the shared generator (server/contracts/gitops.ts), so what is shown is what the tests apply.
 */
export function GitOpsInstall({ chart }: { chart: GitOpsChart }) {
  const s = useStyles();
  const form = useZodForm(GitOpsForm, { namespace: GITOPS_DEFAULTS.namespace, interval: GITOPS_DEFAULTS.interval });
  const watched = useWatch({ control: form.control });
  const [valuesText, setValuesText] = useState('');
  const [tab, setTab] = useState<OutputTab>('flux');

  const parsedForm = GitOpsForm.safeParse(watched);
  const parsedValues = useMemo(() => parseValues(valuesText), [valuesText]);
  // cheap (a few small YAML writes): generated on every render rather than memoised on the form's parts
  const options = parsedForm.success && parsedValues.values
    ? { chart: chart.chart, version: chart.version, ...parsedForm.data, values: parsedValues.values }
    : null;
  const output = options && { flux: fluxYaml(options), helm: helmCommand(options) };

  return (
    <FormProvider {...form}>
      <div className={s.root}>
        <Text>
          Installs the <strong>{chart.chart}</strong> chart, version {chart.version}, from Flanksource&apos;s Helm repository.
        </Text>
        <div className={s.row}>
          <TextField<GitOpsForm> name="namespace" label="Namespace" required />
          <TextField<GitOpsForm> name="interval" label="Interval" hint="How often Flux reconciles, e.g. 30m" required />
        </div>
        <Field
          label="Values"
          hint="Chart values in YAML"
          validationMessage={parsedValues.error}
          validationState={parsedValues.error ? 'error' : 'none'}
        >
          <YamlEditor value={valuesText} onChange={setValuesText} height="200px" label="Values" />
        </Field>
        <TabList selectedValue={tab} onTabSelect={(_, d) => setTab(d.value as OutputTab)} aria-label="Install with">
          <Tab value="flux">{TAB_LABELS.flux}</Tab>
          <Tab value="helm">{TAB_LABELS.helm}</Tab>
        </TabList>
        <div role="tabpanel" aria-label={TAB_LABELS[tab]}>
          {output ? (
            tab === 'flux' ? (
              <Snippet label="HelmRepository and HelmRelease" text={output.flux} copyLabel="Copy YAML" />
            ) : (
              <Snippet label="Shell" text={output.helm} copyLabel="Copy command" />
            )
          ) : (
            <MessageBar intent="error">
              <MessageBarBody>Correct the namespace, interval or values above to see the {TAB_LABELS[tab]} snippet.</MessageBarBody>
            </MessageBar>
          )}
        </div>
        <MessageBar intent="warning">
          <MessageBarBody>You will need to have the Kubernetes chart installed in Flux to use this option.</MessageBarBody>
        </MessageBar>
      </div>
    </FormProvider>
  );
}
