/**
 * Where to go after login: back to the guarded page that sent the visitor (?next=), but only
 * to a path on this site, never to another origin.
 */
export function safeNext(search: string, fallback: string): string {
  const next = new URLSearchParams(search).get('next');
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return fallback;
  return next;
}

/** The login URL that brings the visitor back to `here` afterwards. */
export function loginUrl(loginPath: string, here: string): string {
  return `${loginPath}?next=${encodeURIComponent(here)}`;
}
