import { useEffect } from 'react';
import { makeStyles, Text, tokens } from '@fluentui/react-components';
import { FormDialog, useZodForm } from '../forms/form-dialog';
import { TextField } from '../forms/form-fields';
import { useSaveView } from './api';
import { nameTaken, SaveViewForm, type SavedView } from './model';

const useStyles = makeStyles({
  url: { color: tokens.colorNeutralForeground2, fontFamily: tokens.fontFamilyMonospace, wordBreak: 'break-all' },
});

export interface SaveViewDialogProps {
  open: boolean;
  /** The URL to keep: the page's path and query string. */
  query: string;
  /** The page's views (to refuse a name the person already used). */
  views: readonly SavedView[];
  me: string;
  onClose: () => void;
}

/** "Save view": names the page's current URL, every filter included. */
export function SaveViewDialog({ open, query, views, me, onClose }: SaveViewDialogProps) {
  const s = useStyles();
  const save = useSaveView();
  const form = useZodForm(SaveViewForm, { name: '', description: '' });
  useEffect(() => {
    if (open) form.reset({ name: '', description: '' });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const onSubmit = (values: SaveViewForm) => {
    if (nameTaken(views, values.name, me)) {
      form.setError('name', { message: `You already have a view named ${values.name}` });
      return;
    }
    save.mutate({ form: values, query }, { onSuccess: onClose });
  };

  return (
    <FormDialog
      open={open}
      onOpenChange={(o) => !o && onClose()}
      title="Save view"
      form={form}
      onSubmit={onSubmit}
      busy={save.isPending}
      initialFocus="name"
    >
      <Text className={s.url}>{query}</Text>
      <TextField<SaveViewForm> name="name" label="Name" required />
      <TextField<SaveViewForm> name="description" label="Description" multiline />
    </FormDialog>
  );
}
