/** When the bell's list was last opened in this browser (ISO); errors after it make the badge. */
const KEY = 'notifications.bell.lastSeen';
/** Never opened: errors of the last day count. */
const FIRST_WINDOW_MS = 24 * 60 * 60 * 1000;

export function readLastSeen(now = Date.now()): string {
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(KEY);
  } catch {
    // storage blocked: the default window
  }
  return stored && Number.isFinite(Date.parse(stored)) ? stored : new Date(now - FIRST_WINDOW_MS).toISOString();
}

export function writeLastSeen(at: string): void {
  try {
    localStorage.setItem(KEY, at);
  } catch {
    // storage blocked: the badge resets for this page only
  }
}
