import { STAND_IN_SECRET_KEY, STAND_IN_WEBHOOK_SECRET } from '../../stand-ins/stripe/server.ts';

/** Where the stand-ins of a local shop API listen, and the partner account they were started with. */
export interface StandInsAt {
  stripeUrl: string;
  partnerUrl: string;
  partner: { accessCode: string; secretKey: string };
  partnerWebhookToken: string;
  smtpUrl: string;
  authHost: string;
}

/** The environment that points a shop API process at the stand-ins and the Auth emulator: never a production value. */
export function standInEnv(at: StandInsAt): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: STAND_IN_SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: STAND_IN_WEBHOOK_SECRET,
    STRIPE_API_URL: at.stripeUrl,
    ESIM_ACCESS_CODE: at.partner.accessCode,
    ESIM_ACCESS_SECRET: at.partner.secretKey,
    ESIM_ACCESS_BASE_URL: at.partnerUrl,
    PARTNER_WEBHOOK_TOKEN: at.partnerWebhookToken,
    SMTP_URL: at.smtpUrl,
    FIREBASE_AUTH_EMULATOR_HOST: at.authHost,
  };
}
