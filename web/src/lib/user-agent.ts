/**
 * A device as a person recognises it, from a User-Agent header: "Chrome on Linux", "Safari on iPhone", "curl". Enough
 * for a sessions list and sign-in activity; not a full parser (no versions).
 */
export function deviceName(ua: string | null | undefined): string {
  if (!ua) return 'Unknown device';
  const browser =
    /Edg\//.test(ua) ? 'Edge'
    : /OPR\/|Opera/.test(ua) ? 'Opera'
    : /Firefox\//.test(ua) ? 'Firefox'
    : /HeadlessChrome\//.test(ua) ? 'Headless Chrome'
    : /Chrome\/|Chromium\//.test(ua) ? 'Chrome'
    : /Safari\//.test(ua) && /Version\//.test(ua) ? 'Safari'
    : null;
  const os =
    /iPhone/.test(ua) ? 'iPhone'
    : /iPad/.test(ua) ? 'iPad'
    : /Android/.test(ua) ? 'Android'
    : /Windows/.test(ua) ? 'Windows'
    : /Mac OS X|Macintosh/.test(ua) ? 'macOS'
    : /CrOS/.test(ua) ? 'ChromeOS'
    : /Linux/.test(ua) ? 'Linux'
    : null;
  if (browser) return os ? `${browser} on ${os}` : browser;
  // a command-line client or library: its product token ("curl/8.5.0" → "curl")
  const product = /^([A-Za-z][\w.-]*)\//.exec(ua)?.[1];
  return product && product !== 'Mozilla' ? product : (os ?? 'Unknown device');
}
