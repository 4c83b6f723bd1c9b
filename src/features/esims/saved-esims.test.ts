import { describe, expect, it } from 'vitest';
import { STORAGE_KEYS } from '../../config/constants.ts';
import { esimView } from '../../../tests/support/shop-orders.ts';
import { forgetSavedEsims, readSavedEsims, saveEsims } from './saved-esims.ts';

/** localStorage as a browser keeps it: strings under keys. */
function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, String(value)),
  };
}

const list = { esims: [esimView()] };
const savedAt = new Date('2026-12-01T10:00:00Z');

describe('saved eSIMs', () => {
  it('reads back the list saved for the same user, with when it was saved', () => {
    const store = memoryStorage();
    saveEsims('user-a', list, savedAt, store);
    expect(readSavedEsims('user-a', store)).toEqual({ uid: 'user-a', savedAt: savedAt.toISOString(), esims: list.esims });
    expect(store.getItem(STORAGE_KEYS.savedEsims)).toContain('"uid":"user-a"');
  });

  it("never gives one user another user's eSIMs", () => {
    const store = memoryStorage();
    saveEsims('user-a', list, savedAt, store);
    expect(readSavedEsims('user-b', store)).toBeUndefined();
  });

  it('keeps only the latest list', () => {
    const store = memoryStorage();
    saveEsims('user-a', list, savedAt, store);
    saveEsims('user-b', { esims: [] }, savedAt, store);
    expect(readSavedEsims('user-a', store)).toBeUndefined();
    expect(readSavedEsims('user-b', store)?.esims).toEqual([]);
  });

  it('forgets the list (log-out, account deleted)', () => {
    const store = memoryStorage();
    saveEsims('user-a', list, savedAt, store);
    forgetSavedEsims(store);
    expect(readSavedEsims('user-a', store)).toBeUndefined();
    expect(store.length).toBe(0);
  });

  it('ignores a damaged entry and works without storage', () => {
    const store = memoryStorage();
    store.setItem(STORAGE_KEYS.savedEsims, '{not json');
    expect(readSavedEsims('user-a', store)).toBeUndefined();
    store.setItem(STORAGE_KEYS.savedEsims, JSON.stringify({ uid: 'user-a', savedAt: 'yesterday', esims: [] }));
    expect(readSavedEsims('user-a', store)).toBeUndefined();
    expect(() => saveEsims('user-a', list, savedAt, undefined)).not.toThrow();
    expect(readSavedEsims('user-a', undefined)).toBeUndefined();
  });

  it('survives a full storage', () => {
    const store = {
      ...memoryStorage(),
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
    } as Storage;
    expect(() => saveEsims('user-a', list, savedAt, store)).not.toThrow();
  });
});
