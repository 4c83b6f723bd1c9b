import type { Locale } from '../../i18n/locales.ts';
import { pickMessages } from '../../i18n/namespace-messages.ts';
import { shopErrorMessages, type ShopErrorMessages } from '../../shop-client/shop-error-messages.ts';
import { checkoutNamespace } from '../checkout/messages.ts';
import { travellerShareMessages, type TravellerShareMessages } from '../travellers/messages.ts';
import { autoTopUpMessages, type AutoTopUpMessages } from '../auto-top-ups/messages.ts';
import {
  checklistMessages,
  esimsNamespace,
  installCodesMessages,
  type ChecklistMessages,
  type EsimsNamespace,
  type InstallCodesMessages,
} from './messages.ts';

type MyEsim = EsimsNamespace['myEsim'];

/** The My eSIMs texts the island shows: the page itself shows the title and the empty state. */
const SHOWN = [
  'loading',
  'retry',
  'listLabel',
  'offline',
  'orderNumber',
  'statuses',
  'usageLabel',
  'usage',
  'usagePending',
  'validUntil',
  'installBy',
  'showCodes',
  'topUp',
  'topUpLoading',
  'topUpHeading',
  'topUpNone',
  'cannotTopUp',
  'topUpUnsupported',
  'refund',
  'refundTitle',
  'refundText',
  'refundWindow',
  'refundConfirm',
  'refundKeep',
  'refundBusy',
  'refundRequested',
  'notRefundable',
  'installStep',
  'installSteps',
  'helpDownloaded',
  'helpDeleted',
  'contactSupport',
  'diagnosis',
  'replace',
  'exchange',
  'exchangeHint',
] as const satisfies readonly (keyof MyEsim)[];

/** What the My eSIMs island (MyEsims.tsx and its cards) says, and nothing else. */
export type MyEsimsMessages = Pick<MyEsim, (typeof SHOWN)[number]> &
  ShopErrorMessages & {
    /** checkout.plan: '{{data}} data plan, {{validity}}'. */
    plan: string;
    installCodes: InstallCodesMessages;
    checklist: ChecklistMessages;
    /** Giving an eSIM to a traveller (issue 33). */
    traveller: TravellerShareMessages;
    /** Automatic top-ups (issue 49). */
    autoTopUp: AutoTopUpMessages;
  };

/** One eSIM's card (EsimCard.tsx), with its top-up offer and refund dialog. */
export type EsimCardMessages = Omit<MyEsimsMessages, 'loading' | 'listLabel' | 'offline'>;
export type TopUpOfferMessages = Pick<
  EsimCardMessages,
  'topUp' | 'topUpLoading' | 'topUpHeading' | 'topUpNone' | 'cannotTopUp' | 'retry' | keyof ShopErrorMessages
>;
/** An eSIM's list of top-ups (TopUpPlanList.tsx), in My eSIMs' offer and in checkout with only ?topUp=. */
export type TopUpListMessages = Omit<TopUpOfferMessages, 'topUp'>;
export type RefundDialogMessages = Pick<
  EsimCardMessages,
  | 'refund'
  | 'refundTitle'
  | 'refundText'
  | 'refundWindow'
  | 'refundConfirm'
  | 'refundKeep'
  | 'refundBusy'
  | 'notRefundable'
  | keyof ShopErrorMessages
>;

/** Where the island's links go, in the page's language. */
export interface MyEsimsPaths {
  /** The install guide (/install-esim). */
  guide: string;
  /** The checkout page (/checkout), which a top-up goes through with ?plan=&topUp=. */
  checkout: string;
  /** The support page (/support): the help for an eSIM deleted from the phone. */
  support: string;
  /** The support form (/chat), which "Ask us" opens with the eSIM and its diagnosis (issue 32 item 4). */
  chat: string;
  /** The package pages (/package), each at /package/{destination}: a new plan for an ended eSIM. */
  package: string;
  /** The store (/store): where an exchange picks the destination that was meant. */
  store: string;
}

export function myEsimsMessages(locale: Locale): MyEsimsMessages {
  const { myEsim } = esimsNamespace(locale);
  return {
    ...pickMessages(myEsim, SHOWN),
    ...shopErrorMessages(locale),
    plan: checkoutNamespace(locale).checkout.plan,
    installCodes: installCodesMessages(locale),
    checklist: checklistMessages(locale),
    traveller: travellerShareMessages(locale),
    autoTopUp: autoTopUpMessages(locale),
  };
}

/** The top-up list's texts alone, for checkout (the alerts' top-up link carries no plan: issue 23). */
export function topUpListMessages(locale: Locale): TopUpListMessages {
  const { myEsim } = esimsNamespace(locale);
  return { ...pickMessages(myEsim, ['topUpLoading', 'topUpHeading', 'topUpNone', 'cannotTopUp', 'retry']), ...shopErrorMessages(locale) };
}
