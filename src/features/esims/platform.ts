/**
 * Apple's one-tap eSIM install link works in Safari on iPhone and iPad with iOS 17.5 or later,
 * not inside in-app browsers (DESIGN 6). Older iOS versions show an error page, so the version is checked.
 */
export function offersOneTapInstall({ userAgent, maxTouchPoints }: Pick<Navigator, 'userAgent' | 'maxTouchPoints'>): boolean {
  // iPadOS asks for desktop pages: a Mac user agent with touch.
  const ios = /iPhone|iPad|iPod/.test(userAgent) || (/Macintosh/.test(userAgent) && maxTouchPoints > 1);
  if (!ios) return false;
  // Instagram, Facebook, LINE, WeChat... name themselves in the user agent.
  if (/FBAN|FBAV|Instagram|Line\/|MicroMessenger|GSA\//.test(userAgent)) return false;
  const version = /OS (\d+)_(\d+)/.exec(userAgent) ?? /Version\/(\d+)\.(\d+)/.exec(userAgent);
  if (!version) return false;
  const [major, minor] = [Number(version[1]), Number(version[2])];
  return major > 17 || (major === 17 && minor >= 5);
}
