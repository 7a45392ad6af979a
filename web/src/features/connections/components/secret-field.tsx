import { useId } from 'react';
import { Field, Input, Label, makeStyles, Radio, RadioGroup, Textarea, tokens } from '@fluentui/react-components';
import { useController, useFormContext } from 'react-hook-form';
import { formatSecretValue, parseSecretValue, SECRET_MASK, SecretSource } from '@contracts/connections';

const useStyles = makeStyles({
  group: { border: 'none', margin: 0, padding: 0, minWidth: 0, display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS },
  legend: { padding: 0 },
  refs: { display: 'grid', gridTemplateColumns: '1fr 1fr', gap: tokens.spacingHorizontalM },
  hint: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200 },
});

const SOURCE_LABEL: Record<SecretSource, string> = { static: 'Static', secret: 'Secret', configmap: 'ConfigMap' };

export interface SecretFieldProps {
  name: string;
  label: string;
  hint?: string;
  required?: boolean;
  multiline?: boolean;
}

/**
 * A secret-capable field (spec 001 §4): Static, Secret or ConfigMap. The form holds the stored form of the value
 * (`secret://name/key`, `configmap://name/key` or the literal); switching source clears what was typed. A stored
 * static secret arrives as `***` and goes back as `***` unless replaced, which keeps it on the server.
 */
export function SecretField({ name, label, hint, required, multiline }: SecretFieldProps) {
  const s = useStyles();
  const legendId = useId();
  const { control } = useFormContext();
  const { field, fieldState, formState } = useController({ name, control });
  const raw = (field.value as string | null | undefined) ?? '';
  const value = parseSecretValue(raw);
  const message = fieldState.error && (fieldState.isTouched || formState.isSubmitted) ? fieldState.error.message : undefined;

  const choose = (source: SecretSource) => {
    if (source === value.source) return;
    field.onChange(source === 'static' ? '' : formatSecretValue({ source, name: '', key: '' }));
  };
  const setRef = (part: 'name' | 'key', text: string) => {
    if (value.source === 'static') return;
    // a '/' would move the boundary between name and key
    const next = { ...value, [part]: part === 'name' ? text.replace(/\//g, '') : text };
    field.onChange(formatSecretValue(next));
  };

  const what = SOURCE_LABEL[value.source];
  // a reference's message names its part: put it under that box
  const onName = message && / name /.test(message) ? message : undefined;
  const onKey = message && !onName ? message : undefined;

  return (
    <fieldset className={s.group} aria-labelledby={legendId}>
      <Label id={legendId} required={required} className={s.legend}>
        {label}
      </Label>
      <RadioGroup
        layout="horizontal"
        aria-label={`${label} source`}
        value={value.source}
        onChange={(_, d) => choose(d.value as SecretSource)}
      >
        {SecretSource.options.map((o) => (
          <Radio key={o} value={o} label={SOURCE_LABEL[o]} />
        ))}
      </RadioGroup>
      {value.source === 'static' ? (
        <Field hint={hint} validationMessage={message}>
          {multiline ? (
            <Textarea
              ref={field.ref}
              name={name}
              aria-label={label}
              value={raw}
              resize="vertical"
              rows={4}
              onChange={(_, d) => field.onChange(d.value)}
              onBlur={field.onBlur}
            />
          ) : (
            <Input
              ref={field.ref}
              name={name}
              aria-label={label}
              // the stored secret's stand-in reads as what it is; anything typed is hidden
              type={raw === SECRET_MASK ? 'text' : 'password'}
              autoComplete="new-password"
              value={raw}
              onChange={(_, d) => field.onChange(d.value)}
              onBlur={field.onBlur}
            />
          )}
        </Field>
      ) : (
        <div className={s.refs}>
          <Field validationMessage={onName}>
            <Input
              ref={field.ref}
              aria-label={`${label} ${what} name`}
              placeholder={`${what} name`}
              value={value.name}
              onChange={(_, d) => setRef('name', d.value)}
              onBlur={field.onBlur}
            />
          </Field>
          <Field validationMessage={onKey}>
            <Input
              aria-label={`${label} ${what} key`}
              placeholder="Key"
              value={value.key}
              onChange={(_, d) => setRef('key', d.value)}
              onBlur={field.onBlur}
            />
          </Field>
        </div>
      )}
    </fieldset>
  );
}
