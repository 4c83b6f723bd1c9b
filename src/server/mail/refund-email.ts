import { REFUND_PROCESSING_BUSINESS_DAYS } from '../../config/constants.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatPrice } from '../../lib/format.ts';
import type { Price } from '../../catalogue/schema.ts';
import { planLine, type MailOrder } from './order-summary.ts';
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

/** One eSIM of a cart as its refund e-mail lists it. */
export type CartMailItem = Pick<MailOrder, 'number' | 'total' | 'destinationName' | 'plan'>;

/**
 * A cart delivered in part (issue 33): one e-mail for every eSIM of it that could not be delivered,
 * what each cost and was refunded, the total, and the eSIMs that did arrive (each came with its own
 * e-mail), instead of one refund e-mail per eSIM.
 */
export function cartRefundEmail(input: { lang: Locale; refunded: CartMailItem[]; arrived: CartMailItem[]; siteName: string }): Email {
  const { lang, refunded, arrived, siteName } = input;
  const { t } = mailTranslations(lang);
  const total: Price = { amountMinor: refunded.reduce((sum, o) => sum + o.total.amountMinor, 0), currency: refunded[0]!.total.currency };
  const blocks: Block[] = [
    { kind: 'heading', text: t('refund.heading') },
    { kind: 'paragraph', text: t('refund.cartNotDelivered') },
    { kind: 'subheading', text: t('refund.refundedHeading') },
    {
      kind: 'rows',
      rows: refunded.map((o) => ({ label: `${planLine(o, lang)}, ${formatPrice(o.total, lang)}`, value: o.number, code: true })),
    },
    { kind: 'rows', rows: [{ label: t('refund.amount'), value: formatPrice(total, lang) }] },
    { kind: 'paragraph', text: t('refund.timing', { min: REFUND_PROCESSING_BUSINESS_DAYS.min, max: REFUND_PROCESSING_BUSINESS_DAYS.max }) },
    ...(arrived.length > 0
      ? ([
          { kind: 'subheading', text: t('refund.arrivedHeading') },
          { kind: 'paragraph', text: t('refund.arrivedNote') },
          { kind: 'rows', rows: arrived.map((o) => ({ label: planLine(o, lang), value: o.number, code: true })) },
        ] satisfies Block[])
      : []),
    { kind: 'paragraph', text: t('refund.thanks', { siteName }), small: true },
  ];
  // Named by its first refunded eSIM's order, as a refund of one order is.
  return renderEmail(lang, t('refund.subject', { number: refunded[0]!.number }), blocks);
}
