import { useState, type ReactNode } from 'react';
import {
  Button,
  Dialog,
  DialogActions,
  DialogBody,
  DialogContent,
  DialogSurface,
  DialogTitle,
  makeStyles,
  mergeClasses,
  tokens,
  Tooltip,
} from '@fluentui/react-components';
import { ArrowMaximize20Regular, ArrowMinimize20Regular, Dismiss24Regular, QuestionCircle20Regular } from '@fluentui/react-icons';

export type DialogSize = 'very-small' | 'small' | 'medium' | 'large' | 'full';

const WIDTHS: Record<DialogSize, string> = {
  'very-small': '360px',
  small: '480px',
  medium: '640px',
  large: '880px',
  full: 'calc(100vw - 48px)',
};

const useStyles = makeStyles({
  surface: { maxWidth: 'calc(100vw - 32px)' },
  full: { height: 'calc(100vh - 48px)', maxHeight: 'calc(100vh - 48px)' },
  titleActions: { display: 'flex', gap: tokens.spacingHorizontalXS },
});

export interface AppDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  size?: DialogSize;
  /** Shows an expand toggle that grows the dialog to full size. */
  expandable?: boolean;
  /** A help link in the title bar. */
  helpUrl?: string;
  children: ReactNode;
  /** Buttons at the bottom; a Close button is added when absent. */
  actions?: ReactNode;
}

/** The console's one dialog: sizes, expand toggle, optional help link, Escape and a close button. */
export function AppDialog({ open, onOpenChange, title, size = 'medium', expandable, helpUrl, children, actions }: AppDialogProps) {
  const s = useStyles();
  const [expanded, setExpanded] = useState(false);
  const effective = expanded ? 'full' : size;
  return (
    <Dialog open={open} onOpenChange={(_, d) => onOpenChange(d.open)}>
      <DialogSurface
        className={mergeClasses(s.surface, effective === 'full' && s.full)}
        style={{ width: WIDTHS[effective] }}
      >
        <DialogBody>
          <DialogTitle
            action={
              <div className={s.titleActions}>
                {helpUrl && (
                  <Tooltip content="Help" relationship="label">
                    <Button as="a" href={helpUrl} target="_blank" rel="noreferrer" appearance="subtle" icon={<QuestionCircle20Regular />} />
                  </Tooltip>
                )}
                {expandable && (
                  <Tooltip content={expanded ? 'Restore size' : 'Expand'} relationship="label">
                    <Button
                      appearance="subtle"
                      icon={expanded ? <ArrowMinimize20Regular /> : <ArrowMaximize20Regular />}
                      onClick={() => setExpanded((e) => !e)}
                    />
                  </Tooltip>
                )}
                <Button appearance="subtle" aria-label="Close" icon={<Dismiss24Regular />} onClick={() => onOpenChange(false)} />
              </div>
            }
          >
            {title}
          </DialogTitle>
          <DialogContent>{children}</DialogContent>
          <DialogActions>
            {actions ?? (
              <Button appearance="secondary" onClick={() => onOpenChange(false)}>
                Close
              </Button>
            )}
          </DialogActions>
        </DialogBody>
      </DialogSurface>
    </Dialog>
  );
}
