import type { Locale } from '../../i18n/locales.ts';
import { renderEmail, type Block, type Email } from './render.ts';
import { mailTranslations } from './translations.ts';

/** What an automatic top-up's e-mail tells (issue 49): the bank refused its charge, or the buyer's limit stopped it. */
export type AutoTopUpNews =
  | { kind: 'refused'; reason: 'authentication_required' | 'declined'; payUrl: string; turnedOffAfter: number | null }
  | { kind: 'count_limit'; maxCount: number; topUpUrl: string }
  | { kind: 'monthly_limit'; cap: string; topUpUrl: string };

export interface AutoTopUpEmailInput {
  lang: Locale;
  news: AutoTopUpNews;
  destinationName: string;
  /** The top-up as the buyer reads it ('1 GB, 7 days') and its price, formatted. */
  plan: string;
  price: string;
  /** When the buyer turned automatic top-ups on, formatted. */
  agreedAt: string;
  myEsimsUrl: string;
  /** The one-click page that turns automatic top-ups of this eSIM off. */
  turnOffUrl: string;
  siteName: string;
}

/**
 * An automatic top-up's e-mail when it was not charged: the bank asked for authentication or
 * declined (with the link that pays the same top-up on-session, and the news that they turned off
 * after refusals in a row), or the buyer's own limit was reached (with the link to top up
 * themselves). Every one says why it came and carries the one-click way to turn them off.
 */
export function autoTopUpEmail(input: AutoTopUpEmailInput): Email {
  const { lang, news, destinationName: destination, plan, price } = input;
  const { t } = mailTranslations(lang);
  const blocks: Block[] =
    news.kind === 'refused'
      ? [
          { kind: 'heading', text: t('autoTopUp.refusedHeading') },
          {
            kind: 'paragraph',
            text: t(news.reason === 'authentication_required' ? 'autoTopUp.authenticationRequired' : 'autoTopUp.declined', {
              destination,
              plan,
              price,
            }),
          },
          { kind: 'button', href: news.payUrl, text: t('autoTopUp.pay', { price }) },
          { kind: 'paragraph', text: t('autoTopUp.payValid'), small: true },
          ...(news.turnedOffAfter === null
            ? []
            : [{ kind: 'paragraph', text: t('autoTopUp.turnedOff', { count: news.turnedOffAfter }) } as const]),
        ]
      : [
          { kind: 'heading', text: t('autoTopUp.limitHeading') },
          {
            kind: 'paragraph',
            text:
              news.kind === 'count_limit'
                ? t('autoTopUp.countLimit', { destination, count: news.maxCount })
                : t('autoTopUp.monthlyLimit', { destination, cap: news.cap }),
          },
          { kind: 'button', href: news.topUpUrl, text: t('autoTopUp.topUp') },
        ];
  blocks.push(
    { kind: 'link', href: input.myEsimsUrl, text: t('autoTopUp.myEsims') },
    { kind: 'paragraph', text: t('autoTopUp.reason', { date: input.agreedAt }), small: true },
    { kind: 'link', href: input.turnOffUrl, text: t('autoTopUp.turnOff') },
  );
  const subject = t(news.kind === 'refused' ? 'autoTopUp.refusedSubject' : 'autoTopUp.limitSubject', { destination });
  return renderEmail(lang, subject, blocks);
}
