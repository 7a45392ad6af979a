import { Button } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import type { ComponentDialogProps } from './types';

export function LinkToIncidentDialog({ open, onClose, component }: ComponentDialogProps) {
  return (
    <AppDialog open={open} onOpenChange={(o) => !o && onClose()} title={`Link to Incident`.replace('{name}', component.name)} actions={<Button onClick={onClose}>Cancel</Button>}>
      {component.name}
    </AppDialog>
  );
}
