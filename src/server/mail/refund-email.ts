import { REFUND_PROCESSING_BUSINESS_DAYS } from '../../config/constants.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatPrice } from '../../lib/format.ts';
import type { MailOrder } from './order-summary.ts';
import { renderEmail, type Block, type Email } from './render.ts';
import { mailTranslations } from './translations.ts';

export type RefundReason = 'not_delivered' | 'requested';

/** The refund's notice: how much comes back and when, with an apology when the eSIM could not be delivered. */
export function refundEmail(input: {
  lang: Locale;
  order: Pick<MailOrder, 'number' | 'total'>;
  reason: RefundReason;
  siteName: string;
}): Email {
  const { lang, order, reason, siteName } = input;
  const { t } = mailTranslations(lang);
  const blocks: Block[] = [
    { kind: 'heading', text: t('refund.heading') },
    { kind: 'paragraph', text: t(`refund.${reason}`) },
    {
      kind: 'rows',
      rows: [
        { label: t('refund.number'), value: order.number, code: true },
        { label: t('refund.amount'), value: formatPrice(order.total, lang) },
      ],
    },
    { kind: 'paragraph', text: t('refund.timing', { min: REFUND_PROCESSING_BUSINESS_DAYS.min, max: REFUND_PROCESSING_BUSINESS_DAYS.max }) },
    { kind: 'paragraph', text: t('refund.thanks', { siteName }), small: true },
  ];
  return renderEmail(lang, t('refund.subject', { number: order.number }), blocks);
}
