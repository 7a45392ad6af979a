import { MenuItemRadio, MenuList } from '@fluentui/react-components';
import { isRefreshRateAllowed, REFRESH_RATES } from '../../lib/refresh-rate';

/** The refresh-rate menu's items; loaded with the menu (refresh-rate-selector.tsx), not with the page. */
export function RefreshRateMenuList({ rangeMinutes }: { rangeMinutes?: number }) {
  return (
    <MenuList>
      {REFRESH_RATES.map((r) => {
        const allowed = isRefreshRateAllowed(r.value, rangeMinutes);
        return (
          <MenuItemRadio
            key={r.value}
            name="rate"
            value={String(r.value)}
            disabled={!allowed}
            secondaryContent={allowed ? undefined : 'range too long'}
          >
            {r.label}
          </MenuItemRadio>
        );
      })}
    </MenuList>
  );
}
