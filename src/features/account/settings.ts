import { DARK_MODE_DEFAULT, STORAGE_KEYS } from '../../config/constants.ts';

/**
 * Device-local settings (spec 2): dark mode, saved in local storage. (Push notifications are this
 * device's Push API subscription since issue 23: AlertsCard.tsx.)
 * A browser may block that storage (reading `localStorage` throws): the settings then start
 * from the defaults, still apply to the page, and `storable` says they cannot be kept.
 */
export interface Settings {
  dark: boolean;
  storable: boolean;
}

export const DEFAULT_SETTINGS: Settings = { dark: DARK_MODE_DEFAULT, storable: true };

export function readSettings(): Settings {
  try {
    const theme = localStorage.getItem(STORAGE_KEYS.theme);
    return {
      dark: theme === null ? DARK_MODE_DEFAULT : theme === 'dark',
      storable: true,
    };
  } catch {
    return { ...DEFAULT_SETTINGS, storable: false };
  }
}

/** Applies dark mode to the page and saves it; false when it could not be saved. */
export function writeDarkMode(dark: boolean): boolean {
  document.documentElement.classList.toggle('dark', dark);
  return save(STORAGE_KEYS.theme, dark ? 'dark' : 'light');
}

function save(key: string, value: string): boolean {
  try {
    localStorage.setItem(key, value);
    return true;
  } catch {
    return false;
  }
}
