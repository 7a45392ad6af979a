import { Button } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import type { ComponentDialogProps } from './types';

export function SnapshotDialog({ open, onClose, component }: ComponentDialogProps) {
  return (
    <AppDialog open={open} onOpenChange={(o) => !o && onClose()} title={`Download {name} snapshot`.replace('{name}', component.name)} actions={<Button onClick={onClose}>Cancel</Button>}>
      {component.name}
    </AppDialog>
  );
}
