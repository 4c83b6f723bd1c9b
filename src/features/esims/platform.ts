type Device = Pick<Navigator, 'userAgent' | 'maxTouchPoints'>;

/** Instagram, Facebook, LINE, WeChat, the Google app... name themselves in the user agent. */
const IN_APP = /FBAN|FBAV|Instagram|Line\/|MicroMessenger|GSA\//;

/** iPhone, iPod, or an iPad: iPadOS asks for desktop pages, a Mac user agent with touch. */
const isIos = ({ userAgent, maxTouchPoints }: Device) =>
  /iPhone|iPad|iPod/.test(userAgent) || (/Macintosh/.test(userAgent) && maxTouchPoints > 1);
const isAndroid = ({ userAgent }: Device) => /Android/.test(userAgent);

/**
 * Apple's one-tap eSIM install link works in Safari on iPhone and iPad with iOS 17.5 or later,
 * not inside in-app browsers (DESIGN 6). Older iOS versions show an error page, so the version is checked.
 */
export function offersOneTapInstall(device: Device): boolean {
  if (!isIos(device) || IN_APP.test(device.userAgent)) return false;
  const version = /OS (\d+)_(\d+)/.exec(device.userAgent) ?? /Version\/(\d+)\.(\d+)/.exec(device.userAgent);
  if (!version) return false;
  const [major, minor] = [Number(version[1]), Number(version[2])];
  return major > 17 || (major === 17 && minor >= 5);
}

/**
 * Google's install link opens the system's eSIM setup through Google Play services. It is not
 * documented by Google, so it is offered only where it is known to be handed on: Chrome itself.
 * Samsung Internet, Firefox, Opera, Edge, web views ("; wv)") and in-app browsers get the codes to
 * copy instead: the link may stay a web page there.
 */
export function offersAndroidLink(device: Device): boolean {
  const ua = device.userAgent;
  if (!isAndroid(device) || IN_APP.test(ua) || /; wv\)|SamsungBrowser|Firefox|OPR\/|EdgA|YaBrowser|UCBrowser|Vivaldi/.test(ua))
    return false;
  return /Chrome\/\d+/.test(ua);
}

/**
 * How this device installs the eSIM: 'iosOneTap' Apple's link; 'androidLink' Google's link to try;
 * 'phone' the codes to copy (a phone cannot scan its own screen); 'desktop' the QR code, to scan
 * from the phone that travels.
 */
export type InstallPath = 'iosOneTap' | 'androidLink' | 'phone' | 'desktop';

export function installPath(device: Device): InstallPath {
  if (offersOneTapInstall(device)) return 'iosOneTap';
  if (offersAndroidLink(device)) return 'androidLink';
  if (isIos(device) || isAndroid(device) || /Mobi|Tablet|HarmonyOS|KAIOS/i.test(device.userAgent)) return 'phone';
  return 'desktop';
}

/** Whose settings the get-connected checklist names: iPhone/iPad, Android, or in general words. */
export type PhoneSystem = 'ios' | 'android' | 'other';

export function phoneSystem(device: Device): PhoneSystem {
  return isIos(device) ? 'ios' : isAndroid(device) ? 'android' : 'other';
}

/** Google's install link for an LPA string (the same form as Apple's, on Google's host). */
export const androidInstallUrl = (lpa: string) =>
  `https://esimsetup.android.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(lpa)}`;
