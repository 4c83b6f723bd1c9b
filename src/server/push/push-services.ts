/**
 * The browsers' push services: the hosts a Push API subscription's endpoint names, as the vendors
 * document them. The shop posts push messages there and nowhere else (issue 29: an endpoint is
 * the buyer's input, and any other address would make the API post to whatever it names, its own
 * network included). `*.` is any name under that domain.
 */
export const PUSH_SERVICE_HOSTS = [
  // Chrome, and the browsers built on Chromium outside Windows (Firebase Cloud Messaging);
  // android.googleapis.com: subscriptions from the GCM days.
  'fcm.googleapis.com',
  'android.googleapis.com',
  // Firefox (Mozilla's autopush, updates.push.services.mozilla.com).
  '*.push.services.mozilla.com',
  // Safari on macOS 13+ and iOS 16.4+ (Apple: "allow URLs from *.push.apple.com"; web.push.apple.com).
  '*.push.apple.com',
  // Edge on Windows (Windows Push Notification Services, e.g. wns2-par02p.notify.windows.com).
  '*.notify.windows.com',
] as const;

const hostListed = (hostname: string) =>
  PUSH_SERVICE_HOSTS.some((host) => (host.startsWith('*.') ? hostname.endsWith(host.slice(1)) : hostname === host));

/**
 * Whether the shop may post to this endpoint: https on the default port to a listed host, no
 * credentials in it; or, only where the wiring names it (npm start, the tests), anything at the
 * push-service stand-in's exact origin.
 */
export function pushEndpointAllowed(endpoint: string, standInOrigin?: string): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (standInOrigin !== undefined && url.origin === new URL(standInOrigin).origin) return true;
  // The URL parser empties the port when it is the scheme's default (443).
  return url.protocol === 'https:' && url.port === '' && hostListed(url.hostname);
}
