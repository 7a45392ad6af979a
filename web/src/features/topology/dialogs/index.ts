export { SnapshotDialog } from './snapshot-dialog';
export { LinkToCatalogDialog } from './link-to-catalog-dialog';
export { LinkToIncidentDialog } from './link-to-incident-dialog';
export type { ComponentDialogProps, DialogComponent } from './types';
