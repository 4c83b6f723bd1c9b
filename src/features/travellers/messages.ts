import type { Locale } from '../../i18n/locales.ts';
import { pickMessages } from '../../i18n/namespace-messages.ts';
import { shopErrorMessages, type ShopErrorMessages } from '../../shop-client/shop-error-messages.ts';
import { checkoutNamespace } from '../checkout/messages.ts';
import { checklistMessages, esimsNamespace, installCodesMessages, type EsimsNamespace } from '../esims/messages.ts';
import type { EsimCardMessages } from '../esims/my-esims-messages.ts';

type TravellerTexts = EsimsNamespace['traveller'];

/** What a traveller's name and address fields say when something is wrong (TravellerFields.tsx). */
export type TravellerFieldMessages = Pick<TravellerTexts, 'nameMissing' | 'emailInvalid'>;

/** My eSIMs' panel that gives an eSIM to a traveller (TravellerShare.tsx). */
export type TravellerShareMessages = Pick<
  TravellerTexts,
  | 'label'
  | 'give'
  | 'manage'
  | 'hint'
  | 'name'
  | 'email'
  | 'nameMissing'
  | 'emailInvalid'
  | 'send'
  | 'sending'
  | 'emailed'
  | 'linkReady'
  | 'notEmailed'
  | 'link'
  | 'revoke'
  | 'revoked'
  | 'notShareable'
> &
  ShopErrorMessages & { copy: string; copied: string; copyFailed: string };

export function travellerShareMessages(locale: Locale): TravellerShareMessages {
  const { traveller, installCodes } = esimsNamespace(locale);
  return {
    ...pickMessages(traveller, [
      'label',
      'give',
      'manage',
      'hint',
      'name',
      'email',
      'nameMissing',
      'emailInvalid',
      'send',
      'sending',
      'emailed',
      'linkReady',
      'notEmailed',
      'link',
      'revoke',
      'revoked',
      'notShareable',
    ]),
    ...shopErrorMessages(locale),
    ...pickMessages(installCodes, ['copy', 'copied', 'copyFailed']),
  };
}

/** A traveller's eSIM page (TravellerEsimPage.tsx): its own texts and what My eSIMs' card says of an eSIM. */
export type TravellerPageMessages = Pick<TravellerTexts, 'loading' | 'heading' | 'notFound' | 'failed' | 'private' | 'topUpHint'> &
  Pick<
    EsimCardMessages,
    | 'topUp'
    | 'retry'
    | 'statuses'
    | 'usageLabel'
    | 'usage'
    | 'validUntil'
    | 'installBy'
    | 'installStep'
    | 'installSteps'
    | 'helpDownloaded'
    | 'helpDeleted'
    | 'contactSupport'
    | 'plan'
    | 'installCodes'
    | 'checklist'
  > & {
    /** A paused eSIM: what "Not working?" says of it in My eSIMs. */
    paused: { title: string; fix: string };
  };

export function travellerPageMessages(locale: Locale): TravellerPageMessages {
  const { traveller, myEsim } = esimsNamespace(locale);
  return {
    ...pickMessages(traveller, ['loading', 'heading', 'notFound', 'failed', 'private', 'topUpHint']),
    ...pickMessages(myEsim, [
      'topUp',
      'retry',
      'statuses',
      'usageLabel',
      'usage',
      'validUntil',
      'installBy',
      'installStep',
      'installSteps',
      'helpDownloaded',
      'helpDeleted',
      'contactSupport',
    ]),
    plan: checkoutNamespace(locale).checkout.plan,
    installCodes: installCodesMessages(locale),
    checklist: checklistMessages(locale),
    paused: myEsim.diagnosis.causes.suspended,
  };
}
