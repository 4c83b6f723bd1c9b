import { describe, expect, it } from 'vitest';
import type { PushMessage } from '../../contract/shop-api.ts';
import { notificationOf, openFromNotification, type SiteWindow, type SiteWindows } from './push-notifications.ts';

const message: PushMessage = {
  kind: 'data_80',
  title: 'Japan: 80 % of your data used',
  body: '1 GB left until 3 May.',
  url: '/de/checkout?topUp=esim-1',
  tag: 'esim-1:data_80',
  lang: 'de',
};

describe('notificationOf', () => {
  it('shows the message in its language with the app icon, and keeps the page to open', () => {
    expect(notificationOf(message)).toEqual({
      title: message.title,
      options: {
        body: message.body,
        tag: message.tag,
        lang: 'de',
        dir: 'ltr',
        icon: '/icons/icon-192.png',
        data: { url: '/de/checkout?topUp=esim-1' },
      },
    });
  });

  it('reads Arabic right to left', () => {
    expect(notificationOf({ ...message, lang: 'ar' })?.options.dir).toBe('rtl');
  });

  it('refuses what is not one of our messages, or would open another site', () => {
    for (const bad of [
      null,
      'text',
      { ...message, url: 'https://evil.example/' },
      { ...message, url: '//evil.example/' },
      { ...message, lang: 'xx' },
      { ...message, title: 3 },
    ])
      expect(notificationOf(bad)).toBeUndefined();
  });
});

describe('openFromNotification', () => {
  const ORIGIN = 'https://shop.example';

  /** Tabs that record what the click did to them; `controlled: false` refuses navigate(), as a browser does. */
  function browser(tabs: { url: string; focused?: boolean; controlled?: boolean; refusesFocus?: boolean }[]) {
    const done: string[] = [];
    const windows: SiteWindow[] = tabs.map((tab) => ({
      url: tab.url,
      focused: tab.focused ?? false,
      focus: async () => {
        if (tab.refusesFocus) throw new DOMException('Not allowed to focus a window.', 'InvalidAccessError');
        done.push(`focus ${tab.url}`);
      },
      navigate: async (url) => {
        if (tab.controlled === false) throw new TypeError('not controlled');
        done.push(`navigate ${tab.url} -> ${url}`);
      },
    }));
    const clients: SiteWindows = {
      matchAll: async () => windows,
      openWindow: async (url) => void done.push(`open ${url}`),
    };
    return { clients, done };
  }

  it('moves the focused tab of the site to the page rather than opening another', async () => {
    const { clients, done } = browser([
      { url: 'https://other.example/' },
      { url: `${ORIGIN}/faq` },
      { url: `${ORIGIN}/de/store`, focused: true },
    ]);
    await openFromNotification(clients, ORIGIN, '/de/my-esim');
    expect(done).toEqual([`focus ${ORIGIN}/de/store`, `navigate ${ORIGIN}/de/store -> ${ORIGIN}/de/my-esim`]);
  });

  it('still moves the tab when the browser refuses to focus it', async () => {
    const { clients, done } = browser([{ url: `${ORIGIN}/`, refusesFocus: true }]);
    await openFromNotification(clients, ORIGIN, '/my-esim');
    expect(done).toEqual([`navigate ${ORIGIN}/ -> ${ORIGIN}/my-esim`]);
  });

  it('opens a new tab when no tab of the site is open, or the open one cannot be moved', async () => {
    const none = browser([{ url: 'https://other.example/', focused: true }]);
    await openFromNotification(none.clients, ORIGIN, '/my-esim');
    expect(none.done).toEqual([`open ${ORIGIN}/my-esim`]);
    const uncontrolled = browser([{ url: `${ORIGIN}/`, controlled: false }]);
    await openFromNotification(uncontrolled.clients, ORIGIN, '/my-esim');
    expect(uncontrolled.done).toEqual([`focus ${ORIGIN}/`, `open ${ORIGIN}/my-esim`]);
  });
});
