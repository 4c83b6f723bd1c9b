import { describe, expect, it } from 'vitest';
import { pushAvailability, type PushEnvironment } from './push-availability.ts';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const IPAD_AS_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';
const ANDROID_CHROME =
  'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const device = (changes: Partial<PushEnvironment>): PushEnvironment => ({
  userAgent: ANDROID_CHROME,
  maxTouchPoints: 5,
  standalone: false,
  pushApi: true,
  permission: 'default',
  ...changes,
});

describe('pushAvailability', () => {
  it('asks iPhones and iPads outside the installed app to install it first, whatever their browser has', () => {
    expect(pushAvailability(device({ userAgent: IPHONE, pushApi: false, permission: undefined }))).toBe('installFirst');
    expect(pushAvailability(device({ userAgent: IPAD_AS_MAC, maxTouchPoints: 5, pushApi: true }))).toBe('installFirst');
  });

  it('lets the installed app on an iPhone subscribe; an iOS too old for Web Push has no Push API there', () => {
    expect(pushAvailability(device({ userAgent: IPHONE, standalone: true }))).toBe('available');
    expect(pushAvailability(device({ userAgent: IPHONE, standalone: true, pushApi: false }))).toBe('unsupported');
  });

  it('a Mac without touch is a desktop browser', () => {
    expect(pushAvailability(device({ userAgent: IPAD_AS_MAC, maxTouchPoints: 0 }))).toBe('available');
  });

  it('says when the browser has no Push API, or the visitor blocked notifications', () => {
    expect(pushAvailability(device({ pushApi: false, permission: undefined }))).toBe('unsupported');
    expect(pushAvailability(device({ permission: 'denied' }))).toBe('denied');
    expect(pushAvailability(device({ permission: 'granted' }))).toBe('available');
  });
});
