import { useId, useMemo, useState } from 'react';
import {
  Field,
  Input,
  Select,
  Switch,
  Tag,
  TagPicker,
  TagPickerControl,
  TagPickerGroup,
  TagPickerInput,
  TagPickerList,
  TagPickerOption,
  Textarea,
} from '@fluentui/react-components';
import { useController, useFormContext, type FieldPath, type FieldValues } from 'react-hook-form';
import { formatDurationNs, parseDurationNs } from '../../lib/format';

/**
 * Field components bound to the surrounding react-hook-form form (FormDialog or FormProvider). Each shows its
 * message once the field was touched or the form was submitted (spec 000 §5: "once touched").
 */

export interface BaseFieldProps<T extends FieldValues> {
  name: FieldPath<T>;
  label: string;
  hint?: string;
  required?: boolean;
  disabled?: boolean;
}

function useBoundField<T extends FieldValues>(name: FieldPath<T>) {
  const { control } = useFormContext<T>();
  const { field, fieldState, formState } = useController({ name, control });
  const shown = fieldState.error && (fieldState.isTouched || formState.isSubmitted) ? fieldState.error.message : undefined;
  return { field, message: shown };
}

export interface TextFieldProps<T extends FieldValues> extends BaseFieldProps<T> {
  type?: 'text' | 'email' | 'password' | 'url';
  placeholder?: string;
  multiline?: boolean;
  autoFocus?: boolean;
}

export function TextField<T extends FieldValues>({ name, label, hint, required, disabled, type = 'text', placeholder, multiline, autoFocus }: TextFieldProps<T>) {
  const { field, message } = useBoundField<T>(name);
  const common = {
    name: field.name,
    value: (field.value as string | undefined) ?? '',
    onBlur: field.onBlur,
    disabled,
    placeholder,
    autoFocus,
  };
  return (
    <Field label={label} hint={hint} required={required} validationMessage={message}>
      {multiline ? (
        <Textarea {...common} ref={field.ref} resize="vertical" onChange={(_, d) => field.onChange(d.value)} />
      ) : (
        <Input {...common} ref={field.ref} type={type} autoComplete="off" onChange={(_, d) => field.onChange(d.value)} />
      )}
    </Field>
  );
}

export interface NumberFieldProps<T extends FieldValues> extends BaseFieldProps<T> {
  placeholder?: string;
  /** A unit shown after the box ("ms", "%"). */
  unit?: string;
}

/** A number typed as text, so a stray letter reads "This field must be a number" instead of vanishing. */
export function NumberField<T extends FieldValues>({ name, label, hint, required, disabled, placeholder, unit }: NumberFieldProps<T>) {
  const { field, message } = useBoundField<T>(name);
  const value = field.value as string | number | undefined;
  return (
    <Field label={label} hint={hint} required={required} validationMessage={message}>
      <Input
        ref={field.ref}
        name={field.name}
        inputMode="decimal"
        autoComplete="off"
        value={value === undefined || value === null ? '' : String(value)}
        onChange={(_, d) => field.onChange(d.value)}
        onBlur={field.onBlur}
        disabled={disabled}
        placeholder={placeholder}
        contentAfter={unit}
      />
    </Field>
  );
}

export interface DurationFieldProps<T extends FieldValues> extends BaseFieldProps<T> {
  /** Values offered in the input's dropdown (a native datalist: arrow keys open it); any duration may be typed. */
  suggestions?: readonly string[];
}

/**
 * A duration typed as "5m", "1h30m" or "2d" (spec 001 §5: stored as nanoseconds by the form's schema, see
 * `durationInput`). The hint echoes what was understood.
 */
export function DurationField<T extends FieldValues>({ name, label, hint, required, disabled, suggestions }: DurationFieldProps<T>) {
  const { field, message } = useBoundField<T>(name);
  const listId = useId();
  const list = suggestions?.length ? suggestions : undefined;
  const text = typeof field.value === 'number' ? formatDurationNs(field.value) : ((field.value as string | undefined) ?? '');
  const ns = parseDurationNs(text);
  const echo = Number.isFinite(ns) && ns > 0 ? `= ${formatDurationNs(ns)}` : undefined;
  const input = (
    <Field label={label} hint={hint ?? echo ?? 'Units: s, m, h, d, w (e.g. 90s, 5m, 1h30m)'} required={required} validationMessage={message}>
      <Input
        ref={field.ref}
        name={field.name}
        autoComplete="off"
        placeholder={list ? `e.g. ${list[0]}` : 'e.g. 5m'}
        list={list ? listId : undefined}
        value={text}
        onChange={(_, d) => field.onChange(d.value)}
        onBlur={field.onBlur}
        disabled={disabled}
      />
    </Field>
  );
  if (!list) return input;
  // outside the Field, which passes its label and messages only to a single child
  return (
    <>
      {input}
      <datalist id={listId}>
        {list.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
    </>
  );
}

export interface FieldOption {
  value: string;
  label: string;
}

export interface SelectFieldProps<T extends FieldValues> extends BaseFieldProps<T> {
  options: readonly FieldOption[];
  /** A first, empty choice ("Select a role"); choosing it clears the value. */
  placeholder?: string;
}

/** A native select: keyboard, screen readers and mobile pickers all work without help. */
export function SelectField<T extends FieldValues>({ name, label, hint, required, disabled, options, placeholder }: SelectFieldProps<T>) {
  const { field, message } = useBoundField<T>(name);
  return (
    <Field label={label} hint={hint} required={required} validationMessage={message}>
      <Select
        ref={field.ref}
        name={field.name}
        value={(field.value as string | undefined) ?? ''}
        onChange={(_, d) => field.onChange(d.value)}
        onBlur={field.onBlur}
        disabled={disabled}
      >
        {placeholder !== undefined && <option value="">{placeholder}</option>}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </Select>
    </Field>
  );
}

export interface MultiSelectFieldProps<T extends FieldValues> extends BaseFieldProps<T> {
  options: readonly FieldOption[];
  placeholder?: string;
}

/** Several values from a list, as removable tags with type-to-filter ("No options found" when nothing matches). */
export function MultiSelectField<T extends FieldValues>({ name, label, hint, required, disabled, options, placeholder }: MultiSelectFieldProps<T>) {
  const { field, message } = useBoundField<T>(name);
  const selected = useMemo(() => (field.value as string[] | undefined) ?? [], [field.value]);
  const [query, setQuery] = useState('');
  const labelOf = (v: string) => options.find((o) => o.value === v)?.label ?? v;
  const matching = options.filter(
    (o) => !selected.includes(o.value) && o.label.toLowerCase().includes(query.trim().toLowerCase()),
  );
  return (
    <Field label={label} hint={hint} required={required} validationMessage={message}>
      <TagPicker
        disabled={disabled}
        selectedOptions={selected}
        onOptionSelect={(_, d) => {
          field.onChange(d.selectedOptions);
          setQuery('');
        }}
      >
        <TagPickerControl>
          <TagPickerGroup aria-label={`Selected ${label}`}>
            {selected.map((v) => (
              <Tag key={v} value={v} shape="rounded" size="small">
                {labelOf(v)}
              </Tag>
            ))}
          </TagPickerGroup>
          <TagPickerInput
            aria-label={label}
            name={field.name}
            value={query}
            placeholder={selected.length ? undefined : placeholder}
            onChange={(e) => setQuery(e.target.value)}
            onBlur={field.onBlur}
          />
        </TagPickerControl>
        <TagPickerList>
          {matching.length ? (
            matching.map((o) => (
              <TagPickerOption key={o.value} value={o.value}>
                {o.label}
              </TagPickerOption>
            ))
          ) : (
            <div role="status" style={{ padding: '6px 8px' }}>
              No options found
            </div>
          )}
        </TagPickerList>
      </TagPicker>
    </Field>
  );
}

export interface SwitchFieldProps<T extends FieldValues> extends Omit<BaseFieldProps<T>, 'required'> {}

export function SwitchField<T extends FieldValues>({ name, label, hint, disabled }: SwitchFieldProps<T>) {
  const { field, message } = useBoundField<T>(name);
  return (
    <Field hint={hint} validationMessage={message}>
      <Switch
        ref={field.ref}
        name={field.name}
        label={label}
        checked={!!field.value}
        onChange={(_, d) => {
          field.onChange(d.checked);
          // a switch has no blur worth waiting for: the change is the touch
          field.onBlur();
        }}
        disabled={disabled}
      />
    </Field>
  );
}
