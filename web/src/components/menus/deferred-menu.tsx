import { useCallback, useEffect, useRef, useState, type ReactElement, type ReactNode, type Ref } from 'react';
import type { MenuProps } from '@fluentui/react-components';
import type { LoadedMenu } from './loaded-menu';

/** What the trigger must spread onto its button: the stand-in's handlers, or the real menu's ref. */
export interface DeferredMenuTriggerProps {
  ref?: Ref<HTMLButtonElement>;
  onClick?: () => void;
  onPointerDown?: () => void;
  onPointerEnter?: () => void;
  onFocus?: () => void;
  'aria-haspopup'?: 'menu';
}

export interface DeferredMenuProps {
  /**
   * Renders the trigger button (inside a Tooltip if wanted) with the given props spread on the button. Under the
   * loaded menu it gets no handlers: Fluent's MenuTrigger adds its own, through a Tooltip too.
   */
  trigger: (props: DeferredMenuTriggerProps) => ReactElement;
  /** Props for Fluent's Menu (positioning, checkedValues, onCheckedValueChange…); default positioning below-end. */
  menuProps?: Partial<Omit<MenuProps, 'children'>>;
  /** Started with the menu's own code: load the popover's content here (e.g. a lazy MenuList's module). */
  preload?: () => unknown;
  /** The popover's content (a MenuList, usually lazy: keep Fluent's menu parts out of the caller's chunk). */
  children: ReactNode;
}

type LoadedMenuComponent = typeof LoadedMenu;
let loaded: LoadedMenuComponent | null = null;
let loading: Promise<LoadedMenuComponent> | null = null;
const loadMenu = () =>
  (loading ??= import('./loaded-menu').then((m) => {
    loaded = m.LoadedMenu;
    return m.LoadedMenu;
  }));

function whenIdle(run: () => void): () => void {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(run, { timeout: 2_000 });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(run, 200);
  return () => clearTimeout(id);
}

/**
 * A Fluent menu whose code (react-menu, the positioning engine: about 10 kB gzip) loads once the browser is idle
 * after start-up, or as soon as the pointer or focus reaches its trigger, instead of with the first screen. Until
 * then the trigger renders alone; a click on it meanwhile opens the menu once the code is there, and focus stays on
 * the trigger across the swap.
 *
 * The swap renders a new button. When it lands between a press and its release (the code arrives while the pointer
 * is down), the browser fires no click at all, since the pressed element is gone; so a press on the stand-in already
 * asks for the menu to open once loaded, and a click that does reach the stand-in asks the same.
 */
export function DeferredMenu({ trigger, menuProps, preload, children }: DeferredMenuProps) {
  const [Menu, setMenu] = useState<LoadedMenuComponent | null>(() => loaded);
  const [openAtLoad, setOpenAtLoad] = useState(false);
  const standIn = useRef<HTMLButtonElement>(null);
  const focused = useRef(false);
  const start = useCallback(() => {
    preload?.();
    void loadMenu().then((m) => {
      focused.current = !!standIn.current && standIn.current === document.activeElement;
      setMenu(() => m);
    });
  }, [preload]);
  useEffect(() => (Menu ? undefined : whenIdle(start)), [Menu, start]);
  const openWhenLoaded = () => {
    setOpenAtLoad(true);
    start();
  };

  if (Menu) {
    return (
      <Menu trigger={trigger} menuProps={menuProps} defaultOpen={openAtLoad} focusTrigger={focused.current}>
        {children}
      </Menu>
    );
  }
  return trigger({
    ref: standIn,
    'aria-haspopup': 'menu',
    onPointerEnter: start,
    onFocus: start,
    onPointerDown: openWhenLoaded,
    onClick: openWhenLoaded,
  });
}
