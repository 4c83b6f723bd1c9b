import { throwawayAlertEnv } from '../../scripts/lib/throwaway-alert-keys.ts';

/** The tests' alert keys (issue 23): a throwaway VAPID pair and token key, made once per process. */
const keys = throwawayAlertEnv();
export const TEST_ALERTS = {
  vapid: { publicKey: keys.VAPID_PUBLIC_KEY, privateKey: keys.VAPID_PRIVATE_KEY, subject: 'mailto:alerts@example.com' },
  secret: keys.ALERTS_SECRET,
} as const;
