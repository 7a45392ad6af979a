import { useWatch } from 'react-hook-form';
import { fieldVisible, type ConnectionField, type ConnectionTypeDescriptor, type FieldValues } from '@contracts/connections';
import { NumberField, SelectField, SwitchField, TextField } from '../../../components/forms/form-fields';
import { SecretField } from './secret-field';

function FieldFor({ f }: { f: ConnectionField }) {
  const common = { name: f.name, label: f.label, hint: f.hint, required: f.required };
  switch (f.kind) {
    case 'secret':
      return <SecretField {...common} multiline={f.multiline} />;
    case 'number':
      return <NumberField<FieldValues> {...common} />;
    case 'boolean':
      return <SwitchField<FieldValues> name={f.name} label={f.label} hint={f.hint} />;
    case 'select':
      return <SelectField<FieldValues> {...common} options={f.options ?? []} />;
    case 'textarea':
      return <TextField<FieldValues> {...common} multiline />;
    default:
      return <TextField<FieldValues> {...common} />;
  }
}

/** A type's form: name and namespace, then the descriptor's fields (those whose `when` holds). */
export function ConnectionFields({ desc, editing }: { desc: ConnectionTypeDescriptor; editing: boolean }) {
  const values = useWatch() as FieldValues;
  return (
    <>
      <TextField<FieldValues> name="name" label="Name" required disabled={editing} />
      <TextField<FieldValues> name="namespace" label="Namespace" required disabled={editing} />
      {desc.fields
        .filter((f) => fieldVisible(f, values))
        .map((f) => (
          <FieldFor key={f.name} f={f} />
        ))}
    </>
  );
}
