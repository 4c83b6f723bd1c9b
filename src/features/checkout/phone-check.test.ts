import { describe, expect, it } from 'vitest';
import devices from '../devices/devices.json';
import {
  asksAboutDestination,
  browserRegion,
  findModel,
  loadPhoneCheck,
  PHONE_CHECK_KEY,
  phoneCheckDone,
  savePhoneCheck,
  type PhoneCheck,
} from './phone-check.ts';

function memoryStore(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    data,
    getItem: (key: string) => data.get(key) ?? null,
    setItem: (key: string, value: string) => void data.set(key, value),
  };
}

describe('the remembered phone check', () => {
  it('reads nothing as unanswered and keeps what was saved, under one versioned key', () => {
    const store = memoryStore();
    expect(loadPhoneCheck(store)).toEqual({ destinationsConfirmed: [] });
    const check: PhoneCheck = { model: 'iPhone 15', lock: 'unlocked', destinationsConfirmed: ['JP'] };
    savePhoneCheck(check, store);
    expect([...store.data.keys()]).toEqual([PHONE_CHECK_KEY]);
    expect(JSON.parse(store.data.get(PHONE_CHECK_KEY)!)).toEqual({ v: 1, ...check });
    expect(loadPhoneCheck(store)).toEqual(check);
  });

  it('keeps "my phone isn\'t listed" (null) apart from not answered', () => {
    const store = memoryStore();
    savePhoneCheck({ model: null, destinationsConfirmed: [] }, store);
    expect(loadPhoneCheck(store)).toEqual({ model: null, destinationsConfirmed: [] });
  });

  it('reads another version, broken JSON or odd values as unanswered, field by field', () => {
    expect(loadPhoneCheck(memoryStore({ [PHONE_CHECK_KEY]: '{"v":2,"model":"iPhone 15"}' }))).toEqual({ destinationsConfirmed: [] });
    expect(loadPhoneCheck(memoryStore({ [PHONE_CHECK_KEY]: '{not json' }))).toEqual({ destinationsConfirmed: [] });
    expect(loadPhoneCheck(memoryStore({ [PHONE_CHECK_KEY]: '{"v":1,"model":3,"lock":"maybe","destinationsConfirmed":["DE",4]}' }))).toEqual(
      { destinationsConfirmed: ['DE'] },
    );
  });

  it('survives a browser that refuses storage', () => {
    const refusing = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(loadPhoneCheck(refusing)).toEqual({ destinationsConfirmed: [] });
    expect(() => savePhoneCheck({ model: 'Pixel 7', destinationsConfirmed: [] }, refusing)).not.toThrow();
    expect(loadPhoneCheck(undefined)).toEqual({ destinationsConfirmed: [] });
  });

  it('is done when both the model and the carrier lock are answered', () => {
    expect(phoneCheckDone({ model: 'Pixel 7', destinationsConfirmed: [] })).toBe(false);
    expect(phoneCheckDone({ lock: 'unsure', destinationsConfirmed: [] })).toBe(false);
    expect(phoneCheckDone({ model: null, lock: 'unsure', destinationsConfirmed: [] })).toBe(true);
  });
});

describe('findModel', () => {
  it('finds a listed model by its name in any case, with or without its brand', () => {
    expect(findModel(devices.brands, 'iPhone 15')).toBe('iPhone 15');
    expect(findModel(devices.brands, '  iphone   15 pro ')).toBe('iPhone 15 Pro');
    expect(findModel(devices.brands, 'Samsung Galaxy S24')).toBe('Galaxy S24');
    expect(findModel(devices.brands, 'Google Pixel 7')).toBe('Pixel 7');
    expect(findModel(devices.brands, 'Pixel 4a (5G)')).toBe('Pixel 4a (5G)');
  });

  it('finds nothing for a model the list does not have, or an empty entry', () => {
    expect(findModel(devices.brands, 'iPhone 8')).toBeUndefined();
    expect(findModel(devices.brands, 'iPhone 1')).toBeUndefined();
    expect(findModel(devices.brands, '   ')).toBeUndefined();
  });
});

describe('the destination question', () => {
  it('reads the region of the first browser language that has one', () => {
    expect(browserRegion(['ja-JP', 'en-US'])).toBe('JP');
    expect(browserRegion(['en', 'de-de'])).toBe('DE');
    expect(browserRegion(['zh-Hant-TW'])).toBe('TW');
    expect(browserRegion(['es-419'])).toBeUndefined();
    expect(browserRegion(['en'])).toBeUndefined();
    expect(browserRegion([])).toBeUndefined();
  });

  const none: PhoneCheck = { destinationsConfirmed: [] };
  it('asks when a country plan is for the browser region, once', () => {
    expect(asksAboutDestination('JP', ['ja-JP'], none)).toBe(true);
    expect(asksAboutDestination('JP', ['en-GB'], none)).toBe(false);
    expect(asksAboutDestination('JP', ['ja'], none)).toBe(false);
    expect(asksAboutDestination('JP', ['ja-JP'], { destinationsConfirmed: ['JP'] })).toBe(false);
  });

  it('never asks for a region plan or a top-up (no destination code)', () => {
    expect(asksAboutDestination('europe', ['de-DE'], none)).toBe(false);
    expect(asksAboutDestination(undefined, ['de-DE'], none)).toBe(false);
  });
});
