/**
 * Removes credentials from a connection string before it reaches a message, an error or the stored details:
 * the password of a URL (`scheme://user:pw@host`), of a go-mysql DSN (`user:pw@tcp(host)`) and of key=value
 * strings (`password=...`).
 */
export function maskUrl(raw: string): string {
  let out = raw;
  // scheme://user:password@host -> scheme://user:***@host (the last @ ends the userinfo; passwords may contain @)
  out = out.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i, (_m, scheme: string, userinfo: string) => {
    const i = userinfo.indexOf(':');
    return i < 0 ? `${scheme}${userinfo}@` : `${scheme}${userinfo.slice(0, i)}:***@`;
  });
  // go-mysql DSN user:password@tcp(...)/db
  out = out.replace(/^([^:@/]*):(.*)@((?:tcp|unix|tcp6|udp)?\()/s, (_m, user: string, _pw: string, net: string) => `${user}:***@${net}`);
  out = out.replace(/(password|pwd)\s*=\s*('[^']*'|[^;\s&]*)/gi, '$1=***');
  return out;
}

/** Replaces every occurrence of the given secrets (passwords, tokens) in `text` with `***`. */
export function redactor(...secrets: Array<string | undefined | null>): (text: string) => string {
  const list = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length > 0))].sort(
    (a, b) => b.length - a.length,
  );
  return (text: string) => {
    let out = text;
    for (const s of list) out = out.split(s).join('***');
    return out;
  };
}
