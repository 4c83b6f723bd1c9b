import type { Locale } from '../../i18n/locales.ts';
import { pickMessages } from '../../i18n/namespace-messages.ts';
import { pluralForms, useTranslations } from '../../i18n/t.ts';
import { authNamespace } from '../auth/messages.ts';
import { topUpListMessages, type TopUpListMessages } from '../esims/my-esims-messages.ts';
import { esimsNamespace, type EsimsNamespace } from '../esims/messages.ts';
import { checkoutNamespace, type CheckoutNamespace } from './messages.ts';

type Checkout = CheckoutNamespace['checkout'];

/** What the consents and Buy now form (CheckoutForm.tsx) says. */
export type CheckoutFormMessages = Pick<
  Checkout,
  | 'unknownPlan'
  | 'priceChanged'
  | 'consents'
  | 'acceptTerms'
  | 'termsLink'
  | 'termsRequired'
  | 'immediateStart'
  | 'immediateStartRequired'
  | 'payOnProvider'
  | 'buyNow'
  | 'tripStart'
  | 'tripStartHint'
  | 'exchangeNotice'
  | 'exchangeCancel'
  | 'exchangeSameDestination'
  | 'exchangeRefused'
  | 'exchangeOfReplacement'
> & {
  errors: Pick<
    Checkout['errors'],
    'server' | 'unauthorized' | 'badInput' | 'cannotTopUp' | 'salesPaused' | 'accountBlocked' | 'tooManyRequests'
  >;
  /** Automatic top-ups of the new eSIM (issue 49): the tick, the limits and the consent they make. */
  autoTopUp: Pick<
    EsimsNamespace['autoTopUp'],
    'agree' | 'consent' | 'consentPackage' | 'consentCheapest' | 'maxCount' | 'monthlyCap' | 'capInvalid'
  >;
  /** auth errors.network */
  network: string;
  /** auth errors.tooManyRequests: without a wait. */
  tooManyRequests: string;
};

/** What the checkout island (ChosenPlan.tsx, with its form) says, and nothing else: the page itself shows the title. */
export type ChosenPlanMessages = CheckoutFormMessages &
  Pick<
    Checkout,
    | 'loading'
    | 'loadFailed'
    | 'retry'
    | 'noPlan'
    | 'cancelled'
    | 'summary'
    | 'topUpTitle'
    | 'topUpSummary'
    | 'plan'
    | 'total'
    | 'vatIncluded'
  > & {
    /** common package.backToStore */
    backToStore: string;
    /** paymentSuccess.viewEsims: where a top-up that cannot be bought goes back to. */
    viewEsims: string;
    /** Every plural form of common store.countriesCount, {{count}} left to fill. */
    countries: Record<string, string>;
    /** With ?topUp= and no plan (TopUpChooser.tsx): the eSIM's top-ups as My eSIMs lists them. */
    topUps: TopUpListMessages;
    /** "Will it work on my phone?" (PhoneCheck.tsx), for a new eSIM. */
    phoneCheck: Checkout['phoneCheck'];
  };

/** The consents and Buy now form's texts, for the checkout page and the cart page alike. */
export function checkoutFormMessages(locale: Locale): CheckoutFormMessages {
  const { checkout } = checkoutNamespace(locale);
  const { errors } = authNamespace(locale);
  return {
    ...pickMessages(checkout, [
      'unknownPlan',
      'priceChanged',
      'consents',
      'acceptTerms',
      'termsLink',
      'termsRequired',
      'immediateStart',
      'immediateStartRequired',
      'payOnProvider',
      'buyNow',
      'tripStart',
      'tripStartHint',
      'exchangeNotice',
      'exchangeCancel',
      'exchangeSameDestination',
      'exchangeRefused',
      'exchangeOfReplacement',
    ]),
    errors: pickMessages(checkout.errors, [
      'server',
      'unauthorized',
      'badInput',
      'cannotTopUp',
      'salesPaused',
      'accountBlocked',
      'tooManyRequests',
    ]),
    autoTopUp: pickMessages(esimsNamespace(locale).autoTopUp, [
      'agree',
      'consent',
      'consentPackage',
      'consentCheapest',
      'maxCount',
      'monthlyCap',
      'capInvalid',
    ]),
    network: errors.network,
    tooManyRequests: errors.tooManyRequests,
  };
}

export function chosenPlanMessages(locale: Locale): ChosenPlanMessages {
  const { checkout, paymentSuccess } = checkoutNamespace(locale);
  return {
    ...checkoutFormMessages(locale),
    ...pickMessages(checkout, [
      'loading',
      'loadFailed',
      'retry',
      'noPlan',
      'cancelled',
      'summary',
      'topUpTitle',
      'topUpSummary',
      'plan',
      'total',
      'vatIncluded',
    ]),
    backToStore: useTranslations(locale)('package.backToStore'),
    viewEsims: paymentSuccess.viewEsims,
    countries: pluralForms(locale, 'store.countriesCount'),
    topUps: topUpListMessages(locale),
    phoneCheck: checkout.phoneCheck,
  };
}
