import { isLocale, localeInfo } from '../../i18n/locales.ts';
import { APP_ICON_192 } from './app-icons.ts';

/**
 * The service worker's Web Push part (issue 23): a push message (the contract's PushMessage,
 * already in the subscriber's language) becomes a notification; a click opens its page in a tab
 * of the site that is already open, else in a new one. Checked by hand, as the shop client does:
 * zod is not in the worker.
 */

export interface ShownNotification {
  title: string;
  options: NotificationOptions & { data: { url: string } };
}

const isString = (value: unknown): value is string => typeof value === 'string';

/** The notification a push message asks for; undefined for a message that is not one of ours. */
export function notificationOf(message: unknown): ShownNotification | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { title, body, url, tag, lang } = message as Record<string, unknown>;
  // Only a path of this site: never another site's address, nor '//host'.
  if (!isString(title) || !isString(body) || !isString(tag) || !isString(url) || !/^\/(?!\/)/.test(url)) return undefined;
  if (!isLocale(lang)) return undefined;
  return { title, options: { body, tag, lang, dir: localeInfo(lang).dir, icon: APP_ICON_192, data: { url } } };
}

/** What of the worker's `clients` the click needs (its WindowClient and Clients satisfy these). */
export interface SiteWindow {
  readonly url: string;
  readonly focused: boolean;
  focus(): Promise<unknown>;
  navigate(url: string): Promise<unknown>;
}
export interface SiteWindows {
  matchAll(options: { type: 'window'; includeUncontrolled: true }): Promise<readonly SiteWindow[]>;
  openWindow(url: string): Promise<unknown>;
}

/** Opens `path` in the site's open tab (the focused one first) or, when there is none or it cannot be moved, a new tab. */
export async function openFromNotification(clients: SiteWindows, origin: string, path: string): Promise<void> {
  const target = new URL(path, origin).href;
  const windows = (await clients.matchAll({ type: 'window', includeUncontrolled: true })).filter(
    (window) => new URL(window.url).origin === origin,
  );
  const open = windows.find((window) => window.focused) ?? windows[0];
  if (open) {
    // Focus while the click still allows it; a browser that refuses still gets the tab moved on.
    await open.focus().catch(() => undefined);
    // navigate() works only on a tab this worker controls (one opened before it, not yet reloaded, is not).
    if (
      await open.navigate(target).then(
        () => true,
        () => false,
      )
    )
      return;
  }
  await clients.openWindow(target);
}

/** The push and notificationclick listeners of the worker. */
export function listenForPush(worker: ServiceWorkerGlobalScope): void {
  worker.addEventListener('push', (event) => {
    let message: unknown;
    try {
      message = event.data?.json();
    } catch {
      return; // Not JSON: not ours.
    }
    const shown = notificationOf(message);
    if (shown) event.waitUntil(worker.registration.showNotification(shown.title, shown.options));
  });
  worker.addEventListener('notificationclick', (event) => {
    event.notification.close();
    const { url } = (event.notification.data ?? {}) as { url?: unknown };
    event.waitUntil(openFromNotification(worker.clients, worker.location.origin, isString(url) && url.startsWith('/') ? url : '/'));
  });
}
