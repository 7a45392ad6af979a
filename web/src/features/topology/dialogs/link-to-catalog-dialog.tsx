import { Button } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import type { ComponentDialogProps } from './types';

export function LinkToCatalogDialog({ open, onClose, component }: ComponentDialogProps) {
  return (
    <AppDialog open={open} onOpenChange={(o) => !o && onClose()} title={`Link to Catalog`.replace('{name}', component.name)} actions={<Button onClick={onClose}>Cancel</Button>}>
      {component.name}
    </AppDialog>
  );
}
