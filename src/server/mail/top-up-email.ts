import type { Locale } from '../../i18n/locales.ts';
import { legalBlocks, summaryRows, type MailOrder } from './order-summary.ts';
import { renderEmail, type Block, type Email } from './render.ts';
import { mailTranslations } from './translations.ts';

/** A top-up's confirmation: the same record of the contract, and the way to the eSIM's data in My eSIMs (nothing to install). */
export function topUpEmail(input: {
  lang: Locale;
  order: MailOrder;
  myEsimsUrl: string;
  siteName: string;
  /** An automatic top-up (issue 49): when the buyer agreed, and the one-click page that turns them off. */
  automatic?: { agreedAt: string; turnOffUrl: string } | undefined;
}): Email {
  const { lang, order, myEsimsUrl, siteName, automatic } = input;
  const { t } = mailTranslations(lang);
  const blocks: Block[] = [
    { kind: 'heading', text: t('topUp.heading') },
    { kind: 'paragraph', text: t('topUp.intro', { destination: order.destinationName }) },
    { kind: 'subheading', text: t('order.summaryHeading') },
    { kind: 'rows', rows: summaryRows(order, lang) },
    { kind: 'link', href: myEsimsUrl, text: t('topUp.myEsims') },
    ...(automatic
      ? ([
          { kind: 'paragraph', text: t('autoTopUp.automaticNote', { date: automatic.agreedAt }) },
          { kind: 'link', href: automatic.turnOffUrl, text: t('autoTopUp.turnOff') },
        ] as const)
      : []),
    ...legalBlocks(order, lang, siteName),
  ];
  return renderEmail(lang, t('topUp.subject', { number: order.number }), blocks);
}
