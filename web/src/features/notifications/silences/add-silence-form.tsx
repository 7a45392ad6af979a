import { useId } from 'react';
import {
  Button,
  Field,
  makeStyles,
  MessageBar,
  MessageBarBody,
  Radio,
  RadioGroup,
  Spinner,
  Tab,
  TabList,
  tokens,
} from '@fluentui/react-components';
import { Eye20Regular } from '@fluentui/react-icons';
import { Controller, FormProvider, useWatch } from 'react-hook-form';
import { useLocation, useSearchParams } from 'wouter';
import { useZodForm } from '../../../components/forms/form-dialog';
import { SelectField, SwitchField, TextField } from '../../../components/forms/form-fields';
import { Page } from '../../../components/page';
import { ResourcePicker } from '../../../components/playbooks/resource-picker';
import { ApiError, errorMessage } from '../../../lib/api-client';
import { useCreateSilence, usePreviewSilence } from './api';
import {
  previewQuery,
  silenceBody,
  silenceFormDefaults,
  silenceFieldErrors,
  silenceFormSchema,
  targetProblem,
  SILENCE_DURATIONS,
  SILENCE_TAB_LABELS,
  SILENCE_TABS,
  type SilenceForm,
  type SilenceTab,
  type TargetMode,
} from './model';
import { SilencePreview } from './silence-preview';

const useStyles = makeStyles({
  form: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, maxWidth: '760px' },
  actions: { display: 'flex', gap: tokens.spacingHorizontalS, justifyContent: 'flex-end' },
  target: {
    display: 'flex',
    flexDirection: 'column',
    gap: tokens.spacingVerticalS,
    padding: tokens.spacingHorizontalM,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusMedium,
  },
});

const MODE_LABELS: Record<TargetMode, string> = { resource: 'Resource', filter: 'Filter', selectors: 'Selectors' };
const ID_FIELDS = ['config_id', 'component_id', 'check_id', 'canary_id'] as const;

export interface AddSilenceFormProps {
  /** Where Save and Cancel return to. */
  listHref: string;
}

/** /notifications/silences/add: Name, Duration, Reason, then one target (a resource, a filter or selectors), Preview. */
export function AddSilenceForm({ listHref }: AddSilenceFormProps) {
  const s = useStyles();
  const formId = useId();
  const [params] = useSearchParams();
  const [, navigate] = useLocation();
  const form = useZodForm(silenceFormSchema, silenceFormDefaults(params));
  const create = useCreateSilence();
  const preview = usePreviewSilence();
  const [mode, tab] = useWatch({ control: form.control, name: ['mode', 'tab'] });
  const rootError = form.formState.errors.root?.message;

  const chooseTab = (next: SilenceTab) => {
    form.setValue('tab', next);
    for (const f of ID_FIELDS) form.setValue(f, '');
    preview.reset();
  };
  const onSubmit = form.handleSubmit((values) => {
    form.clearErrors('root');
    create.mutate(silenceBody(values), {
      onSuccess: () => navigate(listHref),
      onError: (err) => {
        const fields = err instanceof ApiError && err.status === 400 ? silenceFieldErrors(err.message, err.details) : [];
        // a field of another mode or tab is not on screen: the message goes on top then
        const shown = fields.filter((f) => document.getElementsByName(f.field).length > 0);
        shown.forEach(({ field, message }, i) => {
          form.setValue(field, form.getValues(field), { shouldTouch: true });
          form.setError(field, { message }, { shouldFocus: i === 0 });
        });
        if (!shown.length) form.setError('root', { message: errorMessage(err) });
      },
    });
  });
  // Preview needs the target only: a duration is not asked for yet
  const onPreview = () => {
    const values = form.getValues();
    const problem = targetProblem(values);
    if (problem) {
      // touched, so the field shows its message as it does after a submit
      form.setValue(problem.field, form.getValues(problem.field), { shouldTouch: true });
      return form.setError(problem.field, { message: problem.message }, { shouldFocus: true });
    }
    form.clearErrors(['config_id', 'component_id', 'check_id', 'filter', 'selectors']);
    preview.mutate(previewQuery(values));
  };

  return (
    <Page title="Add Silence">
      <FormProvider {...form}>
        <form id={formId} className={s.form} noValidate aria-label="Add Silence" onSubmit={(e) => void onSubmit(e)}>
          {rootError && (
            <MessageBar intent="error">
              <MessageBarBody>{rootError}</MessageBarBody>
            </MessageBar>
          )}
          <TextField<SilenceForm> name="name" label="Name" hint="Optional; a name is generated when empty" autoFocus />
          <SelectField<SilenceForm> name="duration" label="Duration" required options={SILENCE_DURATIONS} placeholder="Select a duration" />
          <TextField<SilenceForm> name="description" label="Reason" multiline />
          <Controller
            control={form.control}
            name="mode"
            render={({ field }) => (
              <Field label="Silence by">
                <RadioGroup
                  layout="horizontal"
                  value={field.value}
                  onChange={(_, d) => {
                    field.onChange(d.value);
                    preview.reset();
                  }}
                >
                  {(Object.keys(MODE_LABELS) as TargetMode[]).map((m) => (
                    <Radio key={m} value={m} label={MODE_LABELS[m]} />
                  ))}
                </RadioGroup>
              </Field>
            )}
          />
          <div className={s.target} role="group" aria-label={MODE_LABELS[mode]}>
            {mode === 'resource' && (
              <>
                <TabList selectedValue={tab} onTabSelect={(_, d) => chooseTab(d.value as SilenceTab)} size="small">
                  {SILENCE_TABS.map((t) => (
                    <Tab key={t} value={t}>
                      {SILENCE_TAB_LABELS[t]}
                    </Tab>
                  ))}
                </TabList>
                <Controller
                  control={form.control}
                  name={`${tab}_id`}
                  render={({ field, fieldState, formState }) => (
                    <ResourcePicker
                      key={tab}
                      kind={tab}
                      name={field.name}
                      label={SILENCE_TAB_LABELS[tab]}
                      required
                      value={field.value}
                      onChange={(id) => {
                        field.onChange(id);
                        if (tab === 'check') form.setValue('canary_id', '');
                      }}
                      onBlur={field.onBlur}
                      validationMessage={
                        fieldState.error && (fieldState.isTouched || formState.isSubmitted) ? fieldState.error.message : undefined
                      }
                      hint={tab === 'check' && form.getValues('canary_id') && !field.value ? 'Every check of the canary in the link' : undefined}
                    />
                  )}
                />
                <SwitchField<SilenceForm> name="recursive" label="Recursive" hint="Also silence the resource's children" />
              </>
            )}
            {mode === 'filter' && (
              <TextField<SilenceForm>
                name="filter"
                label="Filter"
                required
                hint="A CEL expression, e.g. check.type == 'http' && check.name.startsWith('api')"
              />
            )}
            {mode === 'selectors' && (
              <TextField<SilenceForm>
                name="selectors"
                label="Selectors"
                required
                multiline
                hint='JSON resource selectors, e.g. [{"types": ["Kubernetes::Pod"], "namespace": "default"}]'
              />
            )}
          </div>
          <div className={s.actions}>
            <Button icon={preview.isPending ? <Spinner size="tiny" /> : <Eye20Regular />} onClick={onPreview} disabledFocusable={preview.isPending}>
              Preview
            </Button>
            <span style={{ flex: 1 }} />
            <Button onClick={() => navigate(listHref)}>Cancel</Button>
            <Button appearance="primary" type="submit" disabledFocusable={create.isPending} icon={create.isPending ? <Spinner size="tiny" /> : undefined}>
              {create.isPending ? 'Saving…' : 'Save'}
            </Button>
          </div>
          <SilencePreview rows={preview.data} error={preview.error} running={preview.isPending} />
        </form>
      </FormProvider>
    </Page>
  );
}
