import { useState } from 'react';
import { Button, makeStyles, Text, tokens } from '@fluentui/react-components';
import { z } from 'zod';
import { AppDialog, type DialogSize } from '../app-dialog';
import { ConfirmDialog } from '../dialogs/confirm-dialog';
import { FormDialog, useZodForm } from '../forms/form-dialog';
import { DurationField, MultiSelectField, NumberField, SelectField, SwitchField, TextField } from '../forms/form-fields';
import { durationInput, numberInput, requiredText } from '../../lib/validation';
import { formatDurationNs } from '../../lib/format';
import { toast } from '../../lib/toast';
import { GallerySection } from './section';

const useStyles = makeStyles({
  row: { display: 'flex', flexWrap: 'wrap', gap: tokens.spacingHorizontalS },
  muted: { color: tokens.colorNeutralForeground3 },
});

const SIZES: DialogSize[] = ['very-small', 'small', 'medium', 'large', 'full'];

const AgentForm = z.object({
  name: requiredText(),
  description: z.string().optional(),
  role: requiredText(),
  teams: z.array(z.string()).min(1, 'This field is required'),
  replicas: numberInput({ required: true, min: 0, integer: true }),
  interval: durationInput({ required: true }),
  pushTelemetry: z.boolean(),
});

const TEAMS = ['sre', 'payments', 'platform', 'security', 'data'].map((t) => ({ value: t, label: t }));

function AgentFormDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (o: boolean) => void }) {
  const form = useZodForm(AgentForm, {
    name: '',
    description: '',
    role: '',
    teams: [],
    replicas: '',
    interval: '30m',
    pushTelemetry: true,
  });
  const [busy, setBusy] = useState(false);
  return (
    <FormDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Create Agent"
      helpUrl="https://docs.example.com/agents"
      form={form}
      initialFocus="name"
      busy={busy}
      onSubmit={(values) => {
        setBusy(true);
        setTimeout(() => {
          setBusy(false);
          onOpenChange(false);
          form.reset();
          toast.success(`Agent created (${values.name}, every ${formatDurationNs(values.interval ?? 0)})`);
        }, 900);
      }}
    >
      <TextField name="name" label="Name" required />
      <TextField name="description" label="Description" multiline />
      <SelectField
        name="role"
        label="Role"
        required
        placeholder="Select a role"
        options={[
          { value: 'admin', label: 'Admin' },
          { value: 'editor', label: 'Editor' },
          { value: 'viewer', label: 'Viewer' },
        ]}
      />
      <MultiSelectField name="teams" label="Teams" required options={TEAMS} placeholder="Pick teams" />
      <NumberField name="replicas" label="Replicas" required />
      <DurationField name="interval" label="Scrape interval" required />
      <SwitchField name="pushTelemetry" label="Push telemetry" hint="Sends health and topology to the console" />
    </FormDialog>
  );
}

export function DialogsSection() {
  const s = useStyles();
  const [size, setSize] = useState<DialogSize | null>(null);
  const [confirm, setConfirm] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [form, setForm] = useState(false);
  return (
    <GallerySection id="dialogs" title="Dialogs and forms" description="Five sizes that step up at 768, 1024, 1280 and 1600 px, an expand toggle and a help link; Escape closes and focus stays inside.">
      <div className={s.row}>
        {SIZES.map((sz) => (
          <Button key={sz} onClick={() => setSize(sz)}>
            {sz}
          </Button>
        ))}
      </div>
      <div className={s.row}>
        <Button appearance="primary" onClick={() => setForm(true)}>
          Form dialog
        </Button>
        <Button onClick={() => setConfirm(true)}>Confirm (destructive)</Button>
      </div>
      <Text size={200} className={s.muted}>
        Messages appear once a field is touched: “This field is required”, “This field must be a number”, “Duration must be greater than 1 minute”.
      </Text>
      {size && (
        <AppDialog open onOpenChange={() => setSize(null)} title={`A ${size} dialog`} size={size} expandable helpUrl="https://docs.example.com/dialogs">
          <Text>
            This dialog is <strong>{size}</strong>. Use the expand toggle in the title bar to grow it to full size, or press Escape to close it.
          </Text>
        </AppDialog>
      )}
      <ConfirmDialog
        open={confirm}
        title="Delete Agent"
        description="Delete the agent eu-west-prod? The resources it created stay until their next scrape."
        confirmLabel="Delete"
        danger
        busy={deleting}
        onCancel={() => setConfirm(false)}
        onConfirm={() => {
          setDeleting(true);
          setTimeout(() => {
            setDeleting(false);
            setConfirm(false);
            toast.success('Agent deleted');
          }, 900);
        }}
      />
      <AgentFormDialog open={form} onOpenChange={setForm} />
    </GallerySection>
  );
}
