/** The app's icons (public/icons): the manifest lists them, and push notifications show the small one. */
export const APP_ICON_192 = '/icons/icon-192.png';
export const APP_ICON_512 = '/icons/icon-512.png';
export const APP_ICON_MASKABLE = '/icons/maskable-512.png';
