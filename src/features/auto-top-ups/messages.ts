import type { Locale } from '../../i18n/locales.ts';
import { shopErrorMessages, type ShopErrorMessages } from '../../shop-client/shop-error-messages.ts';
import { esimsNamespace, type EsimsNamespace } from '../esims/messages.ts';

type AutoTopUp = EsimsNamespace['autoTopUp'];

/** What an eSIM's automatic top-ups (AutoTopUps.tsx, on My eSIMs) say: the switch, the consent, the card, the errors. */
export type AutoTopUpMessages = Omit<AutoTopUp, 'pay' | 'off' | 'invalidLink' | 'myEsims'> &
  ShopErrorMessages & {
    /** My eSIMs' own 'Loading…'. */
    loading: string;
  };

/** What the e-mails' link page (AutoTopUpLink.tsx) says. */
export type AutoTopUpLinkMessages = Pick<AutoTopUp, 'pay' | 'off' | 'invalidLink' | 'myEsims' | 'failed' | 'heading'>;

export function autoTopUpMessages(locale: Locale): AutoTopUpMessages {
  const { autoTopUp, myEsim } = esimsNamespace(locale);
  const { pay: _pay, off: _off, invalidLink: _invalid, myEsims: _myEsims, ...shown } = autoTopUp;
  return { ...shown, ...shopErrorMessages(locale), loading: myEsim.loading };
}

export function autoTopUpLinkMessages(locale: Locale): AutoTopUpLinkMessages {
  const { pay, off, invalidLink, myEsims, failed, heading } = esimsNamespace(locale).autoTopUp;
  return { pay, off, invalidLink, myEsims, failed, heading };
}
