import { lazy, Suspense, useCallback, useState } from 'react';
import { Button, Spinner, Tooltip } from '@fluentui/react-components';
import { ArrowClockwise20Regular, ChevronDown16Regular } from '@fluentui/react-icons';
import {
  effectiveRefreshRate,
  loadRefreshRate,
  refreshRateLabel,
  saveRefreshRate,
  type RefreshRate,
} from '../../lib/refresh-rate';
import { DeferredMenu } from '../menus/deferred-menu';

const loadList = () => import('./refresh-rate-menu-list');
const RefreshRateMenuList = lazy(() => loadList().then((m) => ({ default: m.RefreshRateMenuList })));

export interface RefreshRateSelectorProps {
  /** The chosen interval in ms (0 = None). */
  value: number;
  onChange: (rate: RefreshRate) => void;
  /** The length of the time range on screen; long ranges rule out the short intervals (spec 001 §9). */
  rangeMinutes?: number;
}

/** None, 15s … 15m; intervals too short for the range are disabled with the reason in a tooltip. */
export function RefreshRateSelector({ value, onChange, rangeMinutes }: RefreshRateSelectorProps) {
  const effective = effectiveRefreshRate(value, rangeMinutes);
  const text = effective ? `Refresh: ${refreshRateLabel(effective)}` : 'Auto refresh: None';
  return (
    <DeferredMenu
      menuProps={{
        positioning: 'below-start',
        checkedValues: { rate: [String(effective)] },
        onCheckedValueChange: (_, d) => onChange(Number(d.checkedItems[0]) as RefreshRate),
      }}
      preload={loadList}
      trigger={(props) => (
        <Tooltip content="How often the page refreshes itself" relationship="description">
          {/* a Button with the chevron MenuButton draws (MenuButton's own styles are not worth a download) */}
          <Button {...props} icon={<ArrowClockwise20Regular />} aria-label={text} aria-haspopup="menu">
            {effective ? refreshRateLabel(effective) : 'Off'}
            <ChevronDown16Regular aria-hidden style={{ marginInlineStart: 4 }} />
          </Button>
        </Tooltip>
      )}
    >
      <Suspense fallback={<Spinner size="tiny" label="Loading…" />}>
        <RefreshRateMenuList rangeMinutes={rangeMinutes} />
      </Suspense>
    </DeferredMenu>
  );
}

/**
 * The refresh interval for one page, saved locally under `storageKey`. Returns the interval to poll with (already
 * stepped up when the range rules out the chosen one, 0 for none) — hand it to TanStack Query's `refetchInterval`.
 */
export function useRefreshRate(
  storageKey: string,
  rangeMinutes?: number,
): { chosen: RefreshRate; interval: number; setRate: (rate: RefreshRate) => void } {
  const [chosen, setChosen] = useState<RefreshRate>(() => loadRefreshRate(storageKey));
  const setRate = useCallback(
    (rate: RefreshRate) => {
      setChosen(rate);
      saveRefreshRate(rate, storageKey);
    },
    [storageKey],
  );
  return { chosen, interval: effectiveRefreshRate(chosen, rangeMinutes), setRate };
}
