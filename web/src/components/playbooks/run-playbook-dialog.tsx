import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Button, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { zodResolver } from '@hookform/resolvers/zod';
import { FormProvider, useForm, type Resolver } from 'react-hook-form';
import { useLocation } from 'wouter';
import { stringify } from 'yaml';
import { AppDialog } from '../app-dialog';
import { ApiError, errorMessage } from '../../lib/api-client';
import {
  makeResource,
  needsResource,
  playbookTitle,
  resourceOf,
  usePlanPlaybook,
  usePlaybookParams,
  useRunPlaybook,
  type PlanAction,
  type RunnablePlaybook,
  type PlaybookResource,
  type ResourceKind,
  type RunRequest,
} from './api';
import { ParamField } from './param-field';
import { initialValues, paramsSchema, toRunParams, type ParamValues } from './params';
import { ResourcePicker } from './resource-picker';

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL },
  section: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, border: 'none', margin: 0, padding: 0 },
  legend: { fontWeight: tokens.fontWeightSemibold, fontSize: tokens.fontSizeBase400, padding: 0, marginBottom: tokens.spacingVerticalS },
  muted: { color: tokens.colorNeutralForeground3 },
  error: { color: tokens.colorPaletteRedForeground1, whiteSpace: 'pre-wrap' },
  plan: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
  action: {
    margin: 0,
    padding: tokens.spacingHorizontalM,
    backgroundColor: tokens.colorNeutralBackground3,
    borderRadius: tokens.borderRadiusMedium,
    fontFamily: tokens.fontFamilyMonospace,
    fontSize: tokens.fontSizeBase200,
    overflow: 'auto',
    maxHeight: '240px',
    whiteSpace: 'pre',
  },
});

export interface RunPlaybookDialogProps {
  playbook: RunnablePlaybook;
  /** The resource the run is about (the check drawer's check, the catalog item…): preselected, still changeable. */
  resource?: PlaybookResource | null;
  /** Values to start from instead of the defaults (Re-run: the earlier run's parameters). */
  initialParams?: Record<string, unknown>;
  open: boolean;
  onClose: () => void;
}

/** A run's failure as spec 000 says: the response's `error` field first, then its message. */
export function runFailure(err: unknown): string {
  if (err instanceof ApiError && err.body && typeof err.body === 'object') {
    const b = err.body as Record<string, unknown>;
    const parts = [b.error, b.message].filter((v): v is string => typeof v === 'string' && v !== '');
    if (parts.length) return [...new Set(parts)].join('\n');
  }
  return errorMessage(err);
}

/** A plan's action block as YAML. */
function actionText(a: PlanAction): string {
  if (a.rendered === undefined || a.rendered === null) return '';
  return typeof a.rendered === 'string' ? a.rendered : stringify(a.rendered).trimEnd();
}

const KINDS: ResourceKind[] = ['check', 'config', 'component'];

/**
 * The run dialog (spec 000 "Playbook run dialog"): the Resource section, the parameters (defaults rendered by the
 * server against the resource), a Preview of the rendered actions, and Run, which lands on the run's page.
 */
export function RunPlaybookDialog({ playbook, resource: given, initialParams, open, onClose }: RunPlaybookDialogProps) {
  const s = useStyles();
  const formId = useId();
  const [, navigate] = useLocation();
  const [resource, setResource] = useState<PlaybookResource | null>(given ?? null);
  const chosen = resourceOf(resource);
  const waitingForResource = needsResource(playbook) && !chosen;
  const params = usePlaybookParams(playbook.id, chosen ? resource : null, open && !waitingForResource);
  const list = useMemo(() => params.data?.params ?? [], [params.data]);
  const run = useRunPlaybook();
  const plan = usePlanPlaybook();
  const [failure, setFailure] = useState('');

  // the schema follows the parameters the server answered: the resolver reads the latest list
  const listRef = useRef(list);
  listRef.current = list;
  const resolver: Resolver<ParamValues> = (values, ctx, opts) =>
    (zodResolver(paramsSchema(listRef.current)) as unknown as Resolver<ParamValues>)(values, ctx, opts);
  const form = useForm<ParamValues>({ resolver, mode: 'onTouched', defaultValues: {} });
  useEffect(() => {
    form.reset(initialValues(list, initialParams));
    plan.reset();
    // a new list of parameters (another resource) starts the form again
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [list]);

  const request = (values: ParamValues): RunRequest => ({
    id: playbook.id,
    params: toRunParams(list, values),
    ...(resource && chosen ? resource : {}),
  });

  const submit = form.handleSubmit((values) => {
    setFailure('');
    run.mutate(request(values), {
      onSuccess: (r) => {
        onClose();
        navigate(`/playbooks/runs/${encodeURIComponent(r.run_id)}`);
      },
      onError: (err) => setFailure(runFailure(err)),
    });
  });
  const preview = form.handleSubmit((values) => {
    setFailure('');
    plan.mutate(request(values), { onError: (err) => setFailure(runFailure(err)) });
  });

  const ready = !waitingForResource && params.isSuccess;
  const invalid = ready && list.length > 0 && !form.formState.isValid;
  const runDisabled = !playbook.id || !ready || invalid || run.isPending;

  const pick = (kind: ResourceKind, id: string) => {
    setResource(id ? makeResource(kind, id) : null);
    setFailure('');
  };

  let paramsBody;
  if (waitingForResource) paramsBody = <Text className={s.muted}>Please select a resource to see the parameters.</Text>;
  else if (params.isLoading) paramsBody = <Spinner size="small" label="Loading parameters…" />;
  else if (params.isError) paramsBody = <Text role="alert" className={s.error}>{runFailure(params.error)}</Text>;
  else if (!list.length) paramsBody = <Text className={s.muted}>No parameters for this playbook.</Text>;
  else paramsBody = list.map((p, i) => <ParamField key={`${p.name}-${i}`} p={p} index={i} />);

  return (
    <AppDialog
      open={open}
      onOpenChange={(o) => !o && !run.isPending && onClose()}
      title={`Run ${playbookTitle(playbook)}`}
      size="medium"
      actions={
        <>
          <Button appearance="secondary" onClick={onClose} disabled={run.isPending}>Cancel</Button>
          <Button
            disabled={!ready || plan.isPending || run.isPending}
            icon={plan.isPending ? <Spinner size="tiny" /> : undefined}
            onClick={() => void preview()}
          >
            Preview
          </Button>
          <Button
            appearance="primary"
            type="submit"
            form={formId}
            disabled={runDisabled}
            icon={run.isPending ? <Spinner size="tiny" /> : undefined}
          >
            {run.isPending ? 'Running...' : 'Run'}
          </Button>
        </>
      }
    >
      <FormProvider {...form}>
        <form id={formId} className={s.body} noValidate aria-label={`Run ${playbookTitle(playbook)}`} onSubmit={(e) => void submit(e)}>
          {playbook.description && <Text className={s.muted}>{playbook.description}</Text>}
          <fieldset className={s.section}>
            <legend className={s.legend}>Resource</legend>
            {KINDS.map((kind) => (
              <ResourcePicker
                key={kind}
                kind={kind}
                value={chosen?.kind === kind ? chosen.id : ''}
                onChange={(id) => pick(kind, id)}
              />
            ))}
          </fieldset>
          <fieldset className={s.section}>
            <legend className={s.legend}>Playbook Parameters</legend>
            {paramsBody}
          </fieldset>
          {plan.data && (
            <section className={s.plan} aria-label="Preview">
              <Text weight="semibold">Preview</Text>
              {(plan.data.actions ?? []).length === 0 && <Text className={s.muted}>No actions would run.</Text>}
              {(plan.data.actions ?? []).map((a, i) => (
                <div key={`${a.name ?? ''}-${i}`}>
                  <Text>
                    {i + 1}. {a.name ?? `Action ${i + 1}`}
                    {a.type ? ` (${a.type})` : ''}
                    {a.if ? ` · if ${a.if}` : ''}
                    {a.delay ? ` · after ${a.delay}` : ''}
                  </Text>
                  {a.error && <Text className={s.error}>{a.error}</Text>}
                  {actionText(a) && <pre className={s.action} tabIndex={0}>{actionText(a)}</pre>}
                </div>
              ))}
            </section>
          )}
          {failure && <Text role="alert" className={s.error}>{failure}</Text>}
        </form>
      </FormProvider>
    </AppDialog>
  );
}
