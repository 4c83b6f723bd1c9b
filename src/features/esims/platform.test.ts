import { describe, expect, it } from 'vitest';
import { offersOneTapInstall } from './platform.ts';

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
