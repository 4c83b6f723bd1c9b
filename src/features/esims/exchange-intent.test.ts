import { beforeEach, describe, expect, it } from 'vitest';
import { clearExchangeIntent, readExchangeIntent, saveExchangeIntent } from './exchange-intent.ts';

// The tab's storage as the browser gives it (Node has none): the Storage methods the module uses.
const stored = new Map<string, string>();
Object.assign(globalThis, {
  sessionStorage: {
    getItem: (key: string) => stored.get(key) ?? null,
    setItem: (key: string, value: string) => void stored.set(key, value),
    removeItem: (key: string) => void stored.delete(key),
    clear: () => stored.clear(),
  },
});

describe('the exchange carried from My eSIMs to checkout', () => {
  beforeEach(() => sessionStorage.clear());

  it('keeps the eSIM and its destination for this tab until cleared', () => {
    expect(readExchangeIntent()).toBeUndefined();
    saveExchangeIntent({ id: '0b7a2a52-3f5c-4c39-9a57-8f1f2f3c1d11', destinationName: 'Germany' });
    expect(readExchangeIntent()).toEqual({ id: '0b7a2a52-3f5c-4c39-9a57-8f1f2f3c1d11', destinationName: 'Germany' });
    clearExchangeIntent();
    expect(readExchangeIntent()).toBeUndefined();
  });

  it('ignores what it did not write', () => {
    sessionStorage.setItem('esim-exchange', '{"id": 3}');
    expect(readExchangeIntent()).toBeUndefined();
    sessionStorage.setItem('esim-exchange', 'not json');
    expect(readExchangeIntent()).toBeUndefined();
  });
});
