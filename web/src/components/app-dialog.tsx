import { useCallback, useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
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

/** Dialog widths step up at the spec's window widths (000 §9: 768, 1024, 1280, 1600); below 768 every size fills the window. */
export const DIALOG_BREAKPOINTS = [768, 1024, 1280, 1600] as const;
const at = (px: (typeof DIALOG_BREAKPOINTS)[number]) => `@media (min-width: ${px}px)`;

const useStyles = makeStyles({
  surface: {
    width: 'calc(100vw - 32px)',
    maxWidth: 'calc(100vw - 32px)',
    boxSizing: 'border-box',
  },
  'very-small': { [at(768)]: { width: '400px' } },
  small: { [at(768)]: { width: '520px' }, [at(1280)]: { width: '600px' } },
  medium: { [at(768)]: { width: '680px' }, [at(1024)]: { width: '760px' }, [at(1600)]: { width: '880px' } },
  large: { [at(1024)]: { width: '920px' }, [at(1280)]: { width: '1120px' }, [at(1600)]: { width: '1360px' } },
  full: { width: 'calc(100vw - 48px)', maxWidth: 'calc(100vw - 48px)', height: 'calc(100vh - 48px)' },
  // Fluent's body is a grid of title, scrolling content and actions: at full size it must fill the surface
  fullBody: { height: '100%', maxHeight: '100%' },
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
  /** The help link's accessible name (default "Help"). */
  helpLabel?: string;
  children: ReactNode;
  /** Buttons at the bottom; a Close button is added when absent. */
  actions?: ReactNode;
  /**
   * What gets focus when the dialog opens, instead of Fluent's default (the first focusable element: the title
   * bar's first button): a ref, or a CSS selector looked up inside the dialog (e.g. `'[name="email"]'`).
   */
  initialFocus?: RefObject<HTMLElement | null> | string;
}

/** The element `initialFocus` names inside `surface`, if it is there. */
function focusTarget(surface: HTMLElement | null, initialFocus: AppDialogProps['initialFocus']): HTMLElement | null {
  if (!initialFocus || !surface) return null;
  if (typeof initialFocus !== 'string') return initialFocus.current;
  return surface.querySelector<HTMLElement>(initialFocus);
}

/**
 * Focus on open (`initialFocus`) and back on close. Fluent focuses the first focusable element in an effect of the
 * Dialog, which runs before this one (a parent's effects run after its children's), so this one has the last
 * word. On close Fluent restores focus only for a dialog opened through its DialogTrigger; ours open from state
 * (a row action, a button elsewhere), so focus would fall to <body> when the surface leaves the page (after its
 * exit animation, or at once when the caller unmounts the dialog): the element that had focus before opening gets
 * it back then, if it is still there and focus has not moved elsewhere. Returns the surface's ref.
 */
function useDialogFocus(open: boolean, initialFocus: AppDialogProps['initialFocus']) {
  const surfaceRef = useRef<HTMLElement | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  if (open && !opener.current && typeof document !== 'undefined') {
    const active = document.activeElement;
    opener.current = active instanceof HTMLElement && active !== document.body ? active : null;
  }
  const setSurface = useCallback((el: HTMLElement | null) => {
    surfaceRef.current = el;
    if (el || !opener.current) return;
    const back = opener.current;
    opener.current = null;
    // after the removal: focus that was inside the surface has fallen to <body> by then
    setTimeout(() => {
      const active = document.activeElement;
      if ((!active || active === document.body) && back.isConnected) back.focus();
    }, 0);
  }, []);
  useEffect(() => {
    if (!open || !initialFocus) return;
    let frame = 0;
    let tries = 0;
    // the surface renders in a portal: if it is not in the page in this commit yet, look again next frame
    const apply = () => {
      const target = focusTarget(surfaceRef.current, initialFocus);
      if (target) target.focus();
      else if (++tries < 10) frame = requestAnimationFrame(apply);
    };
    apply();
    return () => cancelAnimationFrame(frame);
  }, [open, initialFocus]);
  return setSurface;
}

/** The console's one dialog: sizes, expand toggle, optional help link, Escape and a close button. */
export function AppDialog({
  open,
  onOpenChange,
  title,
  size = 'medium',
  expandable,
  helpUrl,
  helpLabel = 'Help',
  children,
  actions,
  initialFocus,
}: AppDialogProps) {
  const s = useStyles();
  const surfaceRef = useDialogFocus(open, initialFocus);
  const [expanded, setExpanded] = useState(false);
  const effective = expanded ? 'full' : size;
  return (
    <Dialog open={open} onOpenChange={(_, d) => onOpenChange(d.open)}>
      <DialogSurface ref={surfaceRef} className={mergeClasses(s.surface, s[effective])} data-size={effective}>
        <DialogBody className={effective === 'full' ? s.fullBody : undefined}>
          <DialogTitle
            action={
              <div className={s.titleActions}>
                {helpUrl && (
                  <Tooltip content={helpLabel} relationship="label">
                    <Button as="a" href={helpUrl} target="_blank" rel="noreferrer" appearance="subtle" icon={<QuestionCircle20Regular />} />
                  </Tooltip>
                )}
                {expandable && (
                  <Tooltip content={expanded ? 'Restore size' : 'Expand'} relationship="label">
                    <Button
                      appearance="subtle"
                      aria-pressed={expanded}
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
