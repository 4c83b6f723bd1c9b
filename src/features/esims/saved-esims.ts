import { STORAGE_KEYS } from '../../config/constants.ts';
import type { EsimList, EsimView } from '../../contract/shop-api.ts';

/**
 * My eSIMs kept on this device for reading offline (issue 15 item 8): a traveller who lands
 * without data still has the install codes. One user's list at a time, under their uid; it goes
 * when they log out or delete the account (forgetSavedEsims, called by session.ts endSession).
 */
export interface SavedEsims {
  uid: string;
  /** When the list was loaded, ISO 8601: the offline note says how old it is. */
  savedAt: string;
  esims: EsimView[];
}

/** localStorage, or nothing where the browser blocks it (private modes, disabled storage). */
function storage(): Storage | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the list as loaded just now; a full or blocked storage just means no offline copy. */
export function saveEsims(uid: string, list: EsimList, now = new Date(), store = storage()): void {
  const saved: SavedEsims = { uid, savedAt: now.toISOString(), esims: list.esims };
  try {
    store?.setItem(STORAGE_KEYS.savedEsims, JSON.stringify(saved));
  } catch {
    // Quota or blocked: the page works online all the same.
  }
}

/** The list saved for this user, or undefined: another user's list is never shown. */
export function readSavedEsims(uid: string, store = storage()): SavedEsims | undefined {
  let raw: string | null | undefined;
  try {
    raw = store?.getItem(STORAGE_KEYS.savedEsims);
  } catch {
    return undefined;
  }
  if (!raw) return undefined;
  try {
    const saved = JSON.parse(raw) as Partial<SavedEsims>;
    if (saved.uid !== uid || typeof saved.savedAt !== 'string' || Number.isNaN(Date.parse(saved.savedAt)) || !Array.isArray(saved.esims))
      return undefined;
    return saved as SavedEsims;
  } catch {
    return undefined;
  }
}

/** Removes the saved list (log-out, account deleted): the codes are credentials. */
export function forgetSavedEsims(store = storage()): void {
  try {
    store?.removeItem(STORAGE_KEYS.savedEsims);
  } catch {
    // Blocked storage holds nothing to forget.
  }
}
