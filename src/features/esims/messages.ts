import { REFUND_PROCESSING_BUSINESS_DAYS, REFUND_WINDOW_DAYS } from '../../config/constants.ts';
import type { AuthMessages } from '../auth/messages.ts';

/** What the My eSIMs island says, resolved in the page's language (my-esim.astro). */
export type MyEsimsMessages = AuthMessages['myEsim'] & {
  /** checkout.plan: '{{data}} data plan, {{validity}}'. */
  plan: string;
  installCodes: AuthMessages['installCodes'];
  /** For shopErrorText: the network error and checkout's server, sign-in and input errors. */
  errors: AuthMessages['errors'];
  checkout: AuthMessages['checkout'];
};

/** Where the island's links go, in the page's language. */
export interface MyEsimsPaths {
  /** The install guide (/install-esim). */
  guide: string;
  /** The checkout page (/checkout), which a top-up goes through with ?plan=&topUp=. */
  checkout: string;
}

/** The FAQ's refund figures (the same placeholder names as faq.json's), filled in by the build and again by fill(). */
export const refundFigures = {
  refundDays: String(REFUND_WINDOW_DAYS),
  refundMin: String(REFUND_PROCESSING_BUSINESS_DAYS.min),
  refundMax: String(REFUND_PROCESSING_BUSINESS_DAYS.max),
};
