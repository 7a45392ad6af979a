import { useEffect, useState } from 'react';
import { Combobox, Field, Option } from '@fluentui/react-components';
import { useResourceName, useResourceSearch, type ResourceKind } from './api';

/** The text once typing paused (spec 000 §9: searches wait for quiet). */
function useSettled(value: string, ms = 400): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

export const RESOURCE_LABEL: Record<ResourceKind, string> = { check: 'Check', config: 'Catalog Item', component: 'Component' };

export interface ResourcePickerProps {
  kind: ResourceKind;
  /** The chosen resource's id ('' for none). */
  value: string;
  onChange: (id: string) => void;
  onBlur?: () => void;
  label?: string;
  hint?: string;
  required?: boolean;
  validationMessage?: string;
  disabled?: boolean;
  name?: string;
}

/**
 * Picks a check, catalog item or component by name: typing searches the /api/db relation (20 matches), the arrow keys
 * move through them and Enter chooses. Clearing the text clears the choice.
 */
export function ResourcePicker({ kind, value, onChange, onBlur, label, hint, required, validationMessage, disabled, name }: ResourcePickerProps) {
  const [text, setText] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const search = useSettled(text ?? '');
  const results = useResourceSearch(kind, search, open || text !== null);
  const chosenName = useResourceName(kind, value || undefined);
  const shown = text ?? (value ? (chosenName.data ?? '') : '');
  const fieldLabel = label ?? RESOURCE_LABEL[kind];
  return (
    <Field label={fieldLabel} hint={hint} required={required} validationMessage={validationMessage}>
      <Combobox
        aria-label={fieldLabel}
        name={name}
        freeform
        disabled={disabled}
        placeholder={`Search ${RESOURCE_LABEL[kind].toLowerCase()}s by name`}
        value={shown}
        selectedOptions={value ? [value] : []}
        onOpenChange={(_, d) => setOpen(d.open)}
        onBlur={onBlur}
        onChange={(e) => {
          setText(e.target.value);
          if (!e.target.value) onChange('');
        }}
        onOptionSelect={(_, d) => {
          if (!d.optionValue) return;
          onChange(d.optionValue);
          setText(null);
        }}
      >
        {(results.data ?? []).map((r) => (
          <Option key={r.id} value={r.id} text={r.name}>
            {r.detail ? `${r.name} (${r.detail})` : r.name}
          </Option>
        ))}
        {results.data && !results.data.length && (
          <Option disabled value="" text="">
            No matches
          </Option>
        )}
      </Combobox>
    </Field>
  );
}
