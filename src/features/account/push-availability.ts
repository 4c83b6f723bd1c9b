import { phoneSystem } from '../esims/platform.ts';

/**
 * Whether this device can take push alerts (issue 23): 'available' (the switch works), 'denied'
 * (the visitor blocked notifications for the site: only the browser's settings undo that),
 * 'unsupported' (no Push API), 'installFirst' (iPhone or iPad outside the app added to the home
 * screen: Safari has Web Push only there, from iOS 16.4).
 */
export type PushAvailability = 'available' | 'denied' | 'unsupported' | 'installFirst';

export interface PushEnvironment {
  userAgent: string;
  maxTouchPoints: number;
  /** Running as the app added to the home screen. */
  standalone: boolean;
  /** Service workers, the Push API and notifications are all there. */
  pushApi: boolean;
  permission: NotificationPermission | undefined;
}

export function pushAvailability(device: PushEnvironment): PushAvailability {
  // Before the API check: an iPhone's Safari has no PushManager outside the app, and the fix is installing it.
  if (phoneSystem(device) === 'ios' && !device.standalone) return 'installFirst';
  if (!device.pushApi) return 'unsupported';
  return device.permission === 'denied' ? 'denied' : 'available';
}

/** This browser, as pushAvailability reads it. */
export function thisBrowser(): PushEnvironment {
  const pushApi = 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
  return {
    userAgent: navigator.userAgent,
    maxTouchPoints: navigator.maxTouchPoints,
    standalone: matchMedia('(display-mode: standalone)').matches || (navigator as { standalone?: boolean }).standalone === true,
    pushApi,
    permission: pushApi ? Notification.permission : undefined,
  };
}
