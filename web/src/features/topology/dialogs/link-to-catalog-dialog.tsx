import { useState } from 'react';
import { Button, Combobox, Field, makeStyles, Option, Spinner, Text, tokens } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import { errorMessage } from '../../../lib/api-client';
import { toast } from '../../../lib/toast';
import { useConfigSearch, useLinkConfig, type ConfigOption } from '../api-sidebar';
import type { ComponentDialogProps } from './types';
import { useDebouncedValue } from './use-debounced-value';


const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  error: { color: tokens.colorPaletteRedForeground1 },
});

const optionText = (c: ConfigOption) => `${c.name ?? c.id}${c.type ? ` (${c.type})` : ''}`;

/** "Link to Catalog": pick a catalog item by name; the link is a manual one, which a writer can delete later. */
export function LinkToCatalogDialog({ open, onClose, component }: ComponentDialogProps) {
  const s = useStyles();
  const [text, setText] = useState('');
  const [chosen, setChosen] = useState<ConfigOption | null>(null);
  const [failure, setFailure] = useState('');
  const search = useDebouncedValue(text);
  const results = useConfigSearch(search, open);
  const link = useLinkConfig(component.id);

  const submit = () => {
    if (!chosen) return;
    setFailure('');
    link.mutate(chosen.id, {
      onSuccess: () => {
        toast.success('config link successful');
        onClose();
      },
      // a 409 (already linked) and other refusals: the server's words, in the dialog
      onError: (err) => setFailure(errorMessage(err)),
    });
  };

  return (
    <AppDialog
      open={open}
      onOpenChange={(o) => !o && !link.isPending && onClose()}
      title="Link to Catalog"
      size="small"
      actions={
        <>
          <Button onClick={onClose} disabled={link.isPending}>Cancel</Button>
          <Button appearance="primary" disabled={!chosen || link.isPending} icon={link.isPending ? <Spinner size="tiny" /> : undefined} onClick={submit}>
            Link
          </Button>
        </>
      }
    >
      <div className={s.body}>
        <Text>Link <strong>{component.name}</strong> to a catalog item.</Text>
        <Field label="Catalog item" required>
          <Combobox
            aria-label="Catalog item"
            freeform
            placeholder="Search catalog items by name"
            value={text}
            selectedOptions={chosen ? [chosen.id] : []}
            onChange={(e) => {
              setText(e.target.value);
              setChosen(null);
            }}
            onOptionSelect={(_, d) => {
              const c = results.data?.find((r) => r.id === d.optionValue);
              if (c) {
                setChosen(c);
                setText(c.name ?? c.id);
              }
            }}
          >
            {(results.data ?? []).map((c) => (
              <Option key={c.id} value={c.id} text={c.name ?? c.id}>{optionText(c)}</Option>
            ))}
            {results.data && !results.data.length && <Option disabled value="" text="">No catalog items match</Option>}
          </Combobox>
        </Field>
        {failure && <Text role="alert" className={s.error}>{failure}</Text>}
      </div>
    </AppDialog>
  );
}
