import { Checkbox, Field, makeStyles, tokens } from '@fluentui/react-components';
import { useController, useFormContext } from 'react-hook-form';
import { DurationField, NumberField, SelectField, TextField } from '../forms/form-fields';
import { usePeopleOrTeams, type PlaybookParameter } from './api';
import {
  BYTE_UNITS, codeLanguage, durationOptions, isMultiline, languageLabel, listOptions, paramKey, paramType, unitKey, type ParamValues,
} from './params';
import { ResourcePicker } from './resource-picker';

const useStyles = makeStyles({
  bytes: { display: 'grid', gridTemplateColumns: '1fr 110px', gap: tokens.spacingHorizontalS, alignItems: 'end' },
  code: { '& textarea': { fontFamily: tokens.fontFamilyMonospace, minHeight: '120px' } },
});

const labelOf = (p: PlaybookParameter) => p.label || p.name;

function useMessage(name: string) {
  const { control } = useFormContext<ParamValues>();
  const { field, fieldState, formState } = useController({ name, control });
  const message = fieldState.error && (fieldState.isTouched || formState.isSubmitted) ? fieldState.error.message : undefined;
  return { field, message };
}

function CheckboxParam({ p, name }: { p: PlaybookParameter; name: string }) {
  const { field, message } = useMessage(name);
  return (
    <Field hint={p.description ?? undefined} validationMessage={message}>
      <Checkbox
        ref={field.ref}
        name={name}
        label={labelOf(p)}
        checked={!!field.value}
        onChange={(_, d) => {
          field.onChange(!!d.checked);
          field.onBlur();
        }}
      />
    </Field>
  );
}

function PickerParam({ p, name, kind }: { p: PlaybookParameter; name: string; kind: 'check' | 'config' | 'component' }) {
  const { field, message } = useMessage(name);
  return (
    <ResourcePicker
      kind={kind}
      name={name}
      label={labelOf(p)}
      hint={p.description ?? undefined}
      required={!!p.required}
      value={typeof field.value === 'string' ? field.value : ''}
      onChange={(id) => {
        field.onChange(id);
        field.onBlur();
      }}
      onBlur={field.onBlur}
      validationMessage={message}
    />
  );
}

function PeopleParam({ p, name, kind }: { p: PlaybookParameter; name: string; kind: 'people' | 'team' }) {
  const options = usePeopleOrTeams(kind, true);
  return (
    <SelectField<ParamValues>
      name={name}
      label={labelOf(p)}
      hint={p.description ?? undefined}
      required={!!p.required}
      placeholder={options.isLoading ? 'Loading…' : kind === 'people' ? 'Select a person' : 'Select a team'}
      options={(options.data ?? []).map((o) => ({ value: o.id, label: o.detail && o.detail !== o.name ? `${o.name} (${o.detail})` : o.name }))}
    />
  );
}

/** One parameter's field, by its type (spec 000 "Playbook run dialog"; issue 14 "Parameters"). */
export function ParamField({ p, index }: { p: PlaybookParameter; index: number }) {
  const s = useStyles();
  const name = paramKey(index);
  const common = { name, label: labelOf(p), hint: p.description ?? undefined, required: !!p.required };
  switch (paramType(p)) {
    case 'checkbox':
      return <CheckboxParam p={p} name={name} />;
    case 'list':
      return <SelectField<ParamValues> {...common} placeholder="Select an option" options={listOptions(p)} />;
    case 'people':
    case 'team':
      return <PeopleParam p={p} name={name} kind={paramType(p) as 'people' | 'team'} />;
    case 'check':
    case 'config':
    case 'component':
      return <PickerParam p={p} name={name} kind={paramType(p) as 'check' | 'config' | 'component'} />;
    case 'code':
      return (
        <div className={s.code}>
          <TextField<ParamValues> {...common} multiline hint={common.hint ?? languageLabel(codeLanguage(p))} />
        </div>
      );
    case 'secret':
      return <TextField<ParamValues> {...common} type="password" />;
    case 'millicores':
      return <NumberField<ParamValues> {...common} unit="m" placeholder="e.g. 500" />;
    case 'bytes':
      return (
        <div className={s.bytes}>
          <NumberField<ParamValues> {...common} placeholder="e.g. 512" />
          <SelectField<ParamValues> name={unitKey(index)} label={`${common.label} unit`} options={BYTE_UNITS.map((u) => ({ value: u, label: u }))} />
        </div>
      );
    case 'duration':
      return <DurationField<ParamValues> {...common} suggestions={durationOptions(p)} />;
    default:
      return <TextField<ParamValues> {...common} multiline={isMultiline(p)} />;
  }
}
