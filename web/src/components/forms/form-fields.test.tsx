// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { FormProvider } from 'react-hook-form';
import { z } from 'zod';
import { renderWithProviders } from '../../lib/testing';
import { durationInput, numberInput, requiredText } from '../../lib/validation';
import { FormDialog, useZodForm } from './form-dialog';
import { DurationField, NumberField, SelectField, SwitchField, TextField } from './form-fields';

const Schema = z.object({
  name: requiredText(),
  replicas: numberInput({ required: true, min: 0 }),
  interval: durationInput({ required: true }),
  role: requiredText(),
  enabled: z.boolean(),
});

function TestForm({ onSubmit }: { onSubmit: (v: z.output<typeof Schema>) => void }) {
  const form = useZodForm(Schema, { name: '', replicas: '', interval: '', role: '', enabled: false });
  return (
    <FormProvider {...form}>
      <form onSubmit={form.handleSubmit(onSubmit)} noValidate>
        <TextField<z.input<typeof Schema>> name="name" label="Name" required />
        <NumberField name="replicas" label="Replicas" required />
        <DurationField name="interval" label="Interval" required />
        <SelectField name="role" label="Role" placeholder="Select a role" options={[{ value: 'admin', label: 'Admin' }]} required />
        <SwitchField name="enabled" label="Enabled" />
        <button type="submit">Submit</button>
      </form>
    </FormProvider>
  );
}

describe('form fields', () => {
  it('shows "This field is required" only once a field was touched', async () => {
    const user = userEvent.setup();
    renderWithProviders(<TestForm onSubmit={vi.fn()} />);
    expect(screen.queryByText('This field is required')).toBeNull();
    await user.click(screen.getByRole('textbox', { name: /Name/ }));
    expect(screen.queryByText('This field is required')).toBeNull();
    await user.tab();
    expect(screen.getAllByText('This field is required')).toHaveLength(1);
    const name = screen.getByRole('textbox', { name: /Name/ });
    expect(name.getAttribute('aria-invalid')).toBe('true');
    // once touched it follows every change (leaving Replicas touches that one in turn)
    await user.type(name, 'web');
    expect(name.getAttribute('aria-invalid')).not.toBe('true');
    expect(screen.getByRole('textbox', { name: /Replicas/ }).getAttribute('aria-invalid')).toBe('true');
  });

  it('says "This field must be a number" for text in a number field', async () => {
    const user = userEvent.setup();
    renderWithProviders(<TestForm onSubmit={vi.fn()} />);
    await user.type(screen.getByRole('textbox', { name: /Replicas/ }), '3x');
    await user.tab();
    expect(screen.getByText('This field must be a number')).toBeTruthy();
    await user.type(screen.getByRole('textbox', { name: /Replicas/ }), '{Backspace}');
    expect(screen.queryByText('This field must be a number')).toBeNull();
  });

  it('checks durations against one minute', async () => {
    const user = userEvent.setup();
    renderWithProviders(<TestForm onSubmit={vi.fn()} />);
    const interval = screen.getByRole('textbox', { name: /Interval/ });
    await user.type(interval, '30s');
    await user.tab();
    expect(screen.getByText('Duration must be greater than 1 minute')).toBeTruthy();
    await user.clear(interval);
    await user.type(interval, '1h30m');
    expect(screen.queryByText('Duration must be greater than 1 minute')).toBeNull();
    expect(screen.getByText('= 1h30m')).toBeTruthy();
  });

  it('shows every message on submit and hands over parsed values', async () => {
    const user = userEvent.setup();
    const onSubmit = vi.fn();
    renderWithProviders(<TestForm onSubmit={onSubmit} />);
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(screen.getAllByText('This field is required')).toHaveLength(4);
    expect(onSubmit).not.toHaveBeenCalled();

    await user.type(screen.getByRole('textbox', { name: /Name/ }), 'web');
    await user.type(screen.getByRole('textbox', { name: /Replicas/ }), '3');
    await user.type(screen.getByRole('textbox', { name: /Interval/ }), '5m');
    await user.selectOptions(screen.getByRole('combobox', { name: /Role/ }), 'admin');
    await user.click(screen.getByRole('switch', { name: 'Enabled' }));
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).toHaveBeenCalledWith(
      { name: 'web', replicas: 3, interval: 300e9, role: 'admin', enabled: true },
      expect.anything(),
    );
  });
});

describe('FormDialog', () => {
  function Dialog({ onSubmit, busy, initialFocus }: { onSubmit: (v: { name: string; note: string }) => void; busy?: boolean; initialFocus?: 'name' | 'note' }) {
    const form = useZodForm(z.object({ name: requiredText(), note: z.string() }), { name: '', note: '' });
    return (
      <FormDialog open onOpenChange={() => {}} title="Add Team" form={form} onSubmit={onSubmit} busy={busy} initialFocus={initialFocus}>
        <TextField name="name" label="Name" required />
        <TextField name="note" label="Note" />
      </FormDialog>
    );
  }

  it('submits through its Save button', async () => {
    const user = userEvent.setup();
    const onSubmit = vi.fn();
    renderWithProviders(<Dialog onSubmit={onSubmit} />);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByText('This field is required')).toBeTruthy();
    await user.type(screen.getByRole('textbox', { name: /Name/ }), 'SRE');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSubmit).toHaveBeenCalledWith({ name: 'SRE', note: '' }, expect.anything());
  });

  it('focuses the field initialFocus names when it opens', async () => {
    renderWithProviders(<Dialog onSubmit={vi.fn()} initialFocus="note" />);
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Note' })));
  });

  it('reads "Saving…" while busy', () => {
    renderWithProviders(<Dialog onSubmit={vi.fn()} busy />);
    expect(screen.getByRole('button', { name: 'Saving…' })).toBeTruthy();
  });
});
