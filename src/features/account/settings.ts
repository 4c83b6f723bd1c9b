import { DARK_MODE_DEFAULT, PUSH_NOTIFICATIONS_DEFAULT, STORAGE_KEYS } from '../../config/constants.ts';

/** Device-local settings (spec 2): dark mode and push notifications, saved in local storage. */
export function readDarkMode(): boolean {
  const saved = localStorage.getItem(STORAGE_KEYS.theme);
  return saved === null ? DARK_MODE_DEFAULT : saved === 'dark';
}

export function writeDarkMode(dark: boolean): void {
  localStorage.setItem(STORAGE_KEYS.theme, dark ? 'dark' : 'light');
  document.documentElement.classList.toggle('dark', dark);
}

export function readPush(): boolean {
  const saved = localStorage.getItem(STORAGE_KEYS.pushNotifications);
  return saved === null ? PUSH_NOTIFICATIONS_DEFAULT : saved === 'on';
}

export function writePush(on: boolean): void {
  localStorage.setItem(STORAGE_KEYS.pushNotifications, on ? 'on' : 'off');
}
