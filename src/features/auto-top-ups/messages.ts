import type { Locale } from '../../i18n/locales.ts';
import { pickMessages } from '../../i18n/namespace-messages.ts';
import { shopErrorMessages, type ShopErrorMessages } from '../../shop-client/shop-error-messages.ts';
import { accountNamespace, type AccountNamespace } from '../account/messages.ts';
import { esimsNamespace, type EsimsNamespace } from '../esims/messages.ts';

type AutoTopUp = EsimsNamespace['autoTopUp'];

/** The profile's saved card's own texts: My eSIMs and the link page do without them. */
const PROFILE_ONLY = [
  'profileHeading',
  'profileLoading',
  'cardExpires',
  'profileUse',
  'profileNoCard',
] as const satisfies readonly (keyof AutoTopUp)[];
type ProfileOnly = (typeof PROFILE_ONLY)[number];
/** The link page's and the profile's: My eSIMs' messages leave them out. */
const NOT_ON_MY_ESIMS = ['pay', 'off', 'invalidLink', 'myEsims', ...PROFILE_ONLY] as const;
type NotOnMyEsims = (typeof NOT_ON_MY_ESIMS)[number];

/** What an eSIM's automatic top-ups (AutoTopUps.tsx, on My eSIMs) say: the switch, the consent, the card, the errors. */
export type AutoTopUpMessages = Omit<AutoTopUp, NotOnMyEsims> &
  ShopErrorMessages & {
    /** My eSIMs' own 'Loading…'. */
    loading: string;
    /** My eSIMs' 'Retry', after the panel failed to load (the partner did not list the top-ups). */
    retry: string;
    /** The order history's words for each state: an automatic top-up charged, refused or cancelled says which. */
    states: AccountNamespace['history']['states'];
  };

/** What the e-mails' link page (AutoTopUpLink.tsx) says. */
export type AutoTopUpLinkMessages = Pick<AutoTopUp, 'pay' | 'off' | 'invalidLink' | 'myEsims' | 'failed' | 'heading'>;

/** What the profile's saved card (SavedCardCard.tsx) says; its errors are the profile's shop errors. */
export type SavedCardMessages = Pick<AutoTopUp, ProfileOnly | 'card' | 'removeCard' | 'cardRemoved' | 'myEsims'> & {
  /** My eSIMs' 'Retry', after the card failed to load. */
  retry: string;
};

/** The profile's saved card card: its texts, and the shop errors the profile has for its other cards too. */
export interface SavedCardCardMessages extends ShopErrorMessages {
  savedCard: SavedCardMessages;
}

export function autoTopUpMessages(locale: Locale): AutoTopUpMessages {
  const { autoTopUp, myEsim } = esimsNamespace(locale);
  const notShown = new Set<string>(NOT_ON_MY_ESIMS);
  const shown = Object.fromEntries(Object.entries(autoTopUp).filter(([key]) => !notShown.has(key))) as Omit<AutoTopUp, NotOnMyEsims>;
  return {
    ...shown,
    ...shopErrorMessages(locale),
    loading: myEsim.loading,
    retry: myEsim.retry,
    states: accountNamespace(locale).history.states,
  };
}

export function autoTopUpLinkMessages(locale: Locale): AutoTopUpLinkMessages {
  const { pay, off, invalidLink, myEsims, failed, heading } = esimsNamespace(locale).autoTopUp;
  return { pay, off, invalidLink, myEsims, failed, heading };
}

export function savedCardMessages(locale: Locale): SavedCardMessages {
  const { autoTopUp, myEsim } = esimsNamespace(locale);
  return { ...pickMessages(autoTopUp, [...PROFILE_ONLY, 'card', 'removeCard', 'cardRemoved', 'myEsims']), retry: myEsim.retry };
}
