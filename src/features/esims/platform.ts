type Device = Pick<Navigator, 'userAgent' | 'maxTouchPoints'>;

/** iPhone, iPod, or an iPad: iPadOS asks for desktop pages, a Mac user agent with touch. */
const isIos = ({ userAgent, maxTouchPoints }: Device) =>
  /iPhone|iPad|iPod/.test(userAgent) || (/Macintosh/.test(userAgent) && maxTouchPoints > 1);
const isAndroid = ({ userAgent }: Device) => /Android/.test(userAgent);

/*
 * Safari and Chrome are recognised by the whole shape of their user agent rather than by a list of
 * the apps that are not them, which missed every app it did not name (issue 29). Other browsers and
 * in-app browsers built on them drop Safari's `Version/` (an app's WebKit view), put their name inside
 * the string (CriOS, GSA, SamsungBrowser) or after it (BingSapphire, Ddg, EdgA); Android's web views
 * add `; wv)`. Not a library: bowser (DESIGN 7) calls six of issue 29's eight "Safari", and inapp-spy
 * knows in-app browsers only and lets Daum's app, DuckDuckGo and Aloha pass. Tested on tests/fixtures/user-agents/.
 * No user agent rule tells apart an app that sends the browser's own string (Telegram, SFSafariViewController).
 */
/** Safari on an iPhone or iPad; its `Version/` is the iOS version. */
const IOS_SAFARI =
  /^Mozilla\/5\.0 \((?:iPhone|iPad|iPod|iPod touch); CPU (?:iPhone )?OS [\d_]+ like Mac OS X\) AppleWebKit\/[\d.]+ \(KHTML, like Gecko\) Version\/(\d+)\.(\d+)(?:\.\d+)? Mobile\/\w+ Safari\/[\d.]+$/;
/** Safari's desktop page request (iPadOS, or an iPhone asking for the desktop site): a Mac's Safari string. */
const MAC_SAFARI =
  /^Mozilla\/5\.0 \(Macintosh; Intel Mac OS X [\d_]+\) AppleWebKit\/[\d.]+ \(KHTML, like Gecko\) Version\/(\d+)\.(\d+)(?:\.\d+)? Safari\/[\d.]+$/;
/** Chrome on an Android phone (`Mobile`) or tablet; phone makers' model names hold parentheses and odd case. */
const ANDROID_CHROME =
  /^Mozilla\/5\.0 \(Linux; (?:U; )?Android .*?\) AppleWebKit\/[\d.]+ \(KHTML, like Gecko\) Chrome\/[\d.]+(?: Mobile)?(?: Safari\/[\d.]+)?$/i;

/**
 * Apple's one-tap eSIM install link works in Safari on iPhone and iPad with iOS 17.5 or later,
 * not inside in-app browsers (DESIGN 6). Older iOS versions show an error page, so the version is checked.
 */
export function offersOneTapInstall(device: Device): boolean {
  if (!isIos(device)) return false;
  const version = IOS_SAFARI.exec(device.userAgent) ?? MAC_SAFARI.exec(device.userAgent);
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
export function offersAndroidLink({ userAgent }: Device): boolean {
  return ANDROID_CHROME.test(userAgent) && !userAgent.includes('; wv)');
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
