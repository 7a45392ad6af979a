/** What every card dialog needs of the component: its id and name (a TopologyComponent fits). */
export interface DialogComponent {
  id: string;
  name: string;
}

/** The props H6's card menu passes to each dialog. */
export interface ComponentDialogProps {
  open: boolean;
  onClose(): void;
  component: DialogComponent;
  /** The signed-in user (evidence and incidents record who made them). */
  currentUserId?: string;
}
