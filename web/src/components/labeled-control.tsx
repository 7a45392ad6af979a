import { useId, type ReactNode } from 'react';
import { Label, makeStyles, mergeClasses, tokens } from '@fluentui/react-components';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXXS, minWidth: 0 },
});

export interface LabeledControlProps {
  label: string;
  size?: 'small' | 'medium';
  className?: string;
  /** Renders the control; give it `id` so the label names it (an input's or a dropdown button's id). */
  children: (id: string) => ReactNode;
}

/**
 * A label above one control, for toolbars on pages with a first-load budget (/health). Fluent's Field does the same
 * plus validation messages and hints, which a filter never shows; its code is about 2 kB gzip of /health's initial
 * JavaScript (scripts/bench-web.ts). Forms keep Field.
 */
export function LabeledControl({ label, size = 'medium', className, children }: LabeledControlProps) {
  const s = useStyles();
  const id = useId();
  return (
    <div className={mergeClasses(s.root, className)}>
      <Label htmlFor={id} size={size}>
        {label}
      </Label>
      {children(id)}
    </div>
  );
}
