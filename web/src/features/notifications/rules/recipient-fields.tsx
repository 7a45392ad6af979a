import { Button, Field, makeStyles, Radio, RadioGroup, Tab, TabList, Text, tokens } from '@fluentui/react-components';
import { Add20Regular, Delete20Regular } from '@fluentui/react-icons';
import { useFieldArray, useFormContext, useWatch } from 'react-hook-form';
import { SelectField, TextField } from '../../../components/forms/form-fields';
import { useNotificationConnections, usePeopleOptions, useTeamOptions } from './api';
import { emptyService, RECIPIENT_KINDS, type RecipientKind, type RuleForm } from './model';

const useStyles = makeStyles({
  group: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
  service: {
    display: 'flex',
    flexDirection: 'column',
    gap: tokens.spacingVerticalS,
    padding: tokens.spacingHorizontalM,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusMedium,
  },
  row: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS },
  spacer: { flex: 1 },
  error: { color: tokens.colorPaletteRedForeground1 },
});

const TAB_LABELS: Record<RecipientKind, string> = { person: 'Person', team: 'Team', others: 'Others' };

/** Recipient tabs Person / Team / Others: choosing a tab clears the other two (spec 001 §4). */
export function RecipientFields({ disabled }: { disabled?: boolean }) {
  const s = useStyles();
  const { control, setValue, formState } = useFormContext<RuleForm>();
  const kind = useWatch({ control, name: 'recipient' });
  const people = usePeopleOptions();
  const teams = useTeamOptions();

  const choose = (next: RecipientKind) => {
    if (next === kind) return;
    setValue('recipient', next, { shouldDirty: true });
    if (next !== 'person') setValue('person_id', '', { shouldDirty: true });
    if (next !== 'team') setValue('team_id', '', { shouldDirty: true });
    setValue('services', next === 'others' ? [emptyService()] : [], { shouldDirty: true });
  };
  const servicesError = formState.isSubmitted ? formState.errors.services?.message ?? formState.errors.services?.root?.message : undefined;

  return (
    <div className={s.group} role="group" aria-label="Recipients">
      <Text weight="semibold">Recipients</Text>
      <TabList selectedValue={kind} onTabSelect={(_, d) => choose(d.value as RecipientKind)} disabled={disabled} size="small">
        {RECIPIENT_KINDS.map((k) => (
          <Tab key={k} value={k}>
            {TAB_LABELS[k]}
          </Tab>
        ))}
      </TabList>
      {kind === 'person' && (
        <SelectField<RuleForm>
          name="person_id"
          label="Person"
          required
          disabled={disabled}
          placeholder="Select a person"
          options={(people.data ?? []).map((p) => ({ value: p.id, label: p.email ? `${p.name ?? p.email} <${p.email}>` : (p.name ?? p.id) }))}
        />
      )}
      {kind === 'team' && (
        <SelectField<RuleForm>
          name="team_id"
          label="Team"
          required
          disabled={disabled}
          placeholder="Select a team"
          options={(teams.data ?? []).map((t) => ({ value: t.id, label: t.name ?? t.id }))}
        />
      )}
      {kind === 'others' && <ServiceList disabled={disabled} />}
      {servicesError && (
        <Text role="alert" className={s.error}>
          {servicesError}
        </Text>
      )}
    </div>
  );
}

function ServiceList({ disabled }: { disabled?: boolean }) {
  const s = useStyles();
  const { control, setValue } = useFormContext<RuleForm>();
  const { fields, append, remove } = useFieldArray({ control, name: 'services' });
  const services = useWatch({ control, name: 'services' });
  const connections = useNotificationConnections();
  return (
    <>
      {fields.map((f, i) => {
        const target = services?.[i]?.target ?? 'connection';
        return (
          <div key={f.id} className={s.service} role="group" aria-label={`Service ${i + 1}`}>
            <div className={s.row}>
              <Field label="Send through" className={s.spacer}>
                <RadioGroup
                  layout="horizontal"
                  value={target}
                  disabled={disabled}
                  onChange={(_, d) => {
                    setValue(`services.${i}.target`, d.value as 'connection' | 'url', { shouldDirty: true });
                    setValue(`services.${i}.connection`, '');
                    setValue(`services.${i}.url`, '');
                  }}
                >
                  <Radio value="connection" label="Connection" />
                  <Radio value="url" label="URL" />
                </RadioGroup>
              </Field>
              {!disabled && (
                <Button appearance="subtle" icon={<Delete20Regular />} aria-label={`Remove service ${i + 1}`} onClick={() => remove(i)} />
              )}
            </div>
            {target === 'connection' ? (
              <SelectField<RuleForm>
                name={`services.${i}.connection`}
                label="Connection"
                required
                disabled={disabled}
                placeholder="Select a connection"
                options={withCurrent(connections.data ?? [], services?.[i]?.connection)}
              />
            ) : (
              <TextField<RuleForm>
                name={`services.${i}.url`}
                label="URL"
                required
                disabled={disabled}
                placeholder="slack://$(password)@C0123 or https://…"
              />
            )}
            <TextField<RuleForm> name={`services.${i}.properties`} label="Properties" hint="key=value, one per line" multiline disabled={disabled} />
          </div>
        );
      })}
      {!disabled && (
        <Button icon={<Add20Regular />} onClick={() => append(emptyService())} style={{ alignSelf: 'flex-start' }}>
          Add service
        </Button>
      )}
    </>
  );
}

/** A stored reference not (or no longer) in the list still shows. */
function withCurrent(options: { value: string; label: string }[], current: string | undefined) {
  return current && !options.some((o) => o.value === current) ? [...options, { value: current, label: current }] : options;
}
