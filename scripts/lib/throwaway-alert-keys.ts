import { randomBytes } from 'node:crypto';
import webPush from 'web-push';

/**
 * A throwaway VAPID key pair and unsubscribe-token key (issue 23) for `npm start`, the fault run
 * and the tests: made fresh by each process, never a production value (docs/going-live.md).
 */
export function throwawayAlertEnv(): { VAPID_PUBLIC_KEY: string; VAPID_PRIVATE_KEY: string; ALERTS_SECRET: string } {
  const { publicKey, privateKey } = webPush.generateVAPIDKeys();
  return { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey, ALERTS_SECRET: randomBytes(32).toString('base64url') };
}
