import { throwawayAlertEnv } from '../../scripts/lib/throwaway-alert-keys.ts';
import type { AlertPreferences } from '../../src/contract/shop-api.ts';

/** The tests' alert keys (issue 23): a throwaway VAPID pair and token key, made once per process. */
const keys = throwawayAlertEnv();
export const TEST_ALERTS = {
  vapid: { publicKey: keys.VAPID_PUBLIC_KEY, privateKey: keys.VAPID_PRIVATE_KEY, subject: 'mailto:alerts@example.com' },
  secret: keys.ALERTS_SECRET,
} as const;

/**
 * A new account's alert preferences (issue 23), as a buyer sees them: every alert on both channels,
 * except 'eSIM ready' by e-mail (the order e-mail is that). Stated here, not read from the shop.
 */
export const ALL_ALERTS_ON: AlertPreferences = {
  esim_ready: { email: false, push: true },
  connected: { email: true, push: true },
  not_connected: { email: true, push: true },
  data_80: { email: true, push: true },
  data_used_up: { email: true, push: true },
  validity_1_day: { email: true, push: true },
};
