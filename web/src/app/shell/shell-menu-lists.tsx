import { useLocation } from 'wouter';
import { MenuItem, MenuItemLink, MenuList } from '@fluentui/react-components';
import { Open16Regular } from '@fluentui/react-icons';
import { DOCS_URL } from '../../lib/brand';
import type { NavItem } from './nav-items';

// The shell's menus' items, loaded with the menu code (components/menus/deferred-menu.tsx), not at start-up.

/** The top bar's help menu. */
export function DocsMenuList() {
  return (
    <MenuList>
      <MenuItemLink href={DOCS_URL} target="_blank" rel="noreferrer" secondaryContent={<Open16Regular />}>
        Documentation
      </MenuItemLink>
    </MenuList>
  );
}

/** The collapsed sidebar's settings entries. */
export function SettingsMenuList({ items }: { items: NavItem[] }) {
  const [, navigate] = useLocation();
  return (
    <MenuList>
      {items.map((i) => (
        <MenuItem key={i.href} onClick={() => navigate(i.href)}>
          {i.label}
        </MenuItem>
      ))}
    </MenuList>
  );
}
