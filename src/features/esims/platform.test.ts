import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { androidInstallUrl, installPath, offersAndroidLink, offersOneTapInstall, phoneSystem } from './platform.ts';

const ua = (userAgent: string, maxTouchPoints = 5) => offersOneTapInstall({ userAgent, maxTouchPoints });

describe('offersOneTapInstall', () => {
  it('offers the link in Safari on iOS 17.5 and later', () => {
    expect(
      ua(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      ),
    ).toBe(true);
    expect(
      ua(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
      ),
    ).toBe(true);
    // iPadOS asks for the desktop page.
    expect(
      ua('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15'),
    ).toBe(true);
  });
  it('does not offer it before iOS 17.5, in in-app browsers, on a Mac or on Android', () => {
    expect(
      ua(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      ),
    ).toBe(false);
    expect(
      ua('Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 300.0'),
    ).toBe(false);
    expect(
      ua('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15', 0),
    ).toBe(false);
    expect(ua('Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36')).toBe(
      false,
    );
  });
});

const UA = {
  iphone18:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  iphone16:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 16_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  ipadAsMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15',
  androidChrome: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  samsungInternet:
    'Mozilla/5.0 (Linux; Android 14; SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
  androidWebView:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.0.0 Mobile Safari/537.36',
  androidInstagram:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 Instagram 350.0.0.0',
  windowsChrome: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
};

describe('installPath', () => {
  const path = (userAgent: string, maxTouchPoints = 5) => installPath({ userAgent, maxTouchPoints });
  it("gives iPhones and iPads with iOS 17.5+ Apple's link, Android Chrome Google's", () => {
    expect(path(UA.iphone18)).toBe('iosOneTap');
    expect(path(UA.ipadAsMac)).toBe('iosOneTap');
    expect(path(UA.androidChrome)).toBe('androidLink');
  });
  it('gives other phones the codes to copy: older iOS, Samsung Internet, web views and in-app browsers', () => {
    expect(path(UA.iphone16)).toBe('phone');
    expect(path(UA.samsungInternet)).toBe('phone');
    expect(path(UA.androidWebView)).toBe('phone');
    expect(path(UA.androidInstagram)).toBe('phone');
  });
  it('gives a desktop (a Mac without touch too) the QR code', () => {
    expect(path(UA.windowsChrome, 0)).toBe('desktop');
    expect(path(UA.ipadAsMac, 0)).toBe('desktop');
  });
});

describe('phoneSystem', () => {
  it('names iOS (iPad as a Mac too), Android, or neither', () => {
    expect(phoneSystem({ userAgent: UA.iphone16, maxTouchPoints: 5 })).toBe('ios');
    expect(phoneSystem({ userAgent: UA.ipadAsMac, maxTouchPoints: 5 })).toBe('ios');
    expect(phoneSystem({ userAgent: UA.samsungInternet, maxTouchPoints: 5 })).toBe('android');
    expect(phoneSystem({ userAgent: UA.windowsChrome, maxTouchPoints: 0 })).toBe('other');
  });
});

/** One real user agent of tests/fixtures/user-agents/corpus.json, labelled as its README says. */
interface Sample {
  ua: string;
  /** The browser or app its source names ('Mobile Safari', 'Chrome', 'Chrome WebView', 'TikTok'...). */
  browser: string | null;
  browserVersion: string | null;
  os: string | null;
  osVersion: string | null;
  /** An app that sends this browser's string unchanged: no user agent rule can tell them apart. */
  sameAs?: string;
  /** One of the eight browsers issue 29 found offered Apple's link. */
  issue29?: boolean;
}

const corpus = JSON.parse(readFileSync('tests/fixtures/user-agents/corpus.json', 'utf8')) as Sample[];
const named = (sample: Sample) => sample.sameAs ?? sample.browser;
const from175 = (version: string | null) => {
  const [major = 0, minor = 0] = (version ?? '').split('.').map(Number);
  return major > 17 || (major === 17 && minor >= 5);
};
/** Safari on iOS 17.5+, or (with touch) iPadOS's Safari asking for the desktop page in a Mac's words. */
const appleLinkWorks = (sample: Sample, maxTouchPoints: number) =>
  (sample.os === 'iOS' && named(sample) === 'Mobile Safari' && from175(sample.osVersion)) ||
  (maxTouchPoints > 1 && sample.os === 'Mac OS' && named(sample) === 'Safari' && from175(sample.browserVersion));
const androidLinkWorks = (sample: Sample) => sample.os === 'Android' && named(sample) === 'Chrome';
/** The samples whose answer is not what their labels call for, named for the failure message. */
const wrong = (answer: (sample: Sample) => boolean, expected: (sample: Sample) => boolean) =>
  corpus
    .filter((sample) => answer(sample) !== expected(sample))
    .map(({ ua, browser, os, osVersion }) => `${browser} on ${os} ${osVersion}: ${ua}`);

describe('install links over real user agents (tests/fixtures/user-agents)', () => {
  it("offers Apple's link to Safari on iOS 17.5+ and to no other browser or in-app browser", () => {
    for (const maxTouchPoints of [0, 5])
      expect(
        wrong(
          (sample) => offersOneTapInstall({ userAgent: sample.ua, maxTouchPoints }),
          (sample) => appleLinkWorks(sample, maxTouchPoints),
        ),
      ).toEqual([]);
  });
  it("offers Google's link to Chrome on Android and not to its web views, other browsers or in-app browsers", () => {
    expect(
      wrong(
        (sample) => offersAndroidLink({ userAgent: sample.ua, maxTouchPoints: 5 }),
        (sample) => androidLinkWorks(sample),
      ),
    ).toEqual([]);
  });
  it("refuses Apple's link to the eight browsers issue 29 found it offered to", () => {
    const eight = corpus.filter((sample) => sample.issue29);
    expect(eight.map(named)).toEqual(['Daum', 'TikTok', 'Teams', 'YouTube', 'Bing', 'Yahoo! JAPAN', 'Aloha Browser', 'DuckDuckGo']);
    for (const { ua } of eight) expect(installPath({ userAgent: ua, maxTouchPoints: 5 })).toBe('phone');
  });
  it('holds enough of each kind for the answers above to mean something', () => {
    const count = (is: (sample: Sample) => boolean) => corpus.filter(is).length;
    expect(count((sample) => appleLinkWorks(sample, 5))).toBeGreaterThanOrEqual(50);
    expect(count((sample) => sample.os === 'iOS' && !appleLinkWorks(sample, 5) && from175(sample.osVersion))).toBeGreaterThanOrEqual(100);
    expect(count(androidLinkWorks)).toBeGreaterThanOrEqual(250);
    expect(count((sample) => sample.os === 'Android' && !androidLinkWorks(sample))).toBeGreaterThanOrEqual(400);
  });
});

describe('androidInstallUrl', () => {
  it("puts the URL-encoded LPA string on Google's host", () => {
    expect(androidInstallUrl('LPA:1$rsp.example.test$K2-1A2B')).toBe(
      'https://esimsetup.android.com/esim_qrcode_provisioning?carddata=LPA%3A1%24rsp.example.test%24K2-1A2B',
    );
  });
});
