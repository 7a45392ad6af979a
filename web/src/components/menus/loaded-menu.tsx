import { useEffect, useRef, type ReactElement, type ReactNode, type Ref } from 'react';
import { Menu, MenuPopover, MenuTrigger, type MenuProps } from '@fluentui/react-components';

export interface LoadedMenuProps {
  trigger: (props: { ref?: Ref<HTMLButtonElement> }) => ReactElement;
  menuProps?: Partial<Omit<MenuProps, 'children'>>;
  /** The trigger was clicked before this code loaded: open at once. */
  defaultOpen: boolean;
  /** The stand-in trigger had focus: keep it on the real one. */
  focusTrigger: boolean;
  children: ReactNode;
}

/** The Fluent Menu behind DeferredMenu (deferred-menu.tsx), in a chunk of its own. */
export function LoadedMenu({ trigger, menuProps, defaultOpen, focusTrigger, children }: LoadedMenuProps) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (focusTrigger) ref.current?.focus();
    // only when this replaces the stand-in
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <Menu positioning="below-end" defaultOpen={defaultOpen} {...menuProps}>
      <MenuTrigger disableButtonEnhancement>{trigger({ ref })}</MenuTrigger>
      <MenuPopover>{children}</MenuPopover>
    </Menu>
  );
}
