import type { Price } from '../../catalogue/schema.ts';
import { localeInfo, type Locale } from '../../i18n/locales.ts';
import { formatDataAmount, formatDateTime, formatPrice, formatValidity } from '../../lib/format.ts';
import type { OrderView } from '../../contract/shop-api.ts';
import type { Block, Row } from './render.ts';
import { mailTranslations } from './translations.ts';

/** What the order and top-up e-mails both carry (DESIGN 6): the order, and the record of the contract (BGB § 312f). */

export interface MailOrder {
  /** What the buyer quotes to support: ES-2026-000123. */
  number: string;
  createdAt: Date;
  /** VAT included. */
  total: Price;
  plan: Pick<OrderView['plan'], 'metadata' | 'validity' | 'validityUnit' | 'supportedCountries'>;
  /** The destination's name in the buyer's language. */
  destinationName: string;
  /** The terms version accepted at checkout, and when both consents were given. */
  termsVersion: string;
  consentedAt: Date;
}

/** The order as a table: number, date, destination (and coverage of a regional plan), plan, price with VAT. */
export function summaryRows(order: MailOrder, lang: Locale): Row[] {
  const { t } = mailTranslations(lang);
  return [
    { label: t('order.number'), value: order.number, code: true },
    { label: t('order.date'), value: formatDateTime(order.createdAt, lang) },
    ...planRows(order, lang),
    { label: t('order.total'), value: t('order.totalValue', { price: formatPrice(order.total, lang) }) },
  ];
}

/** What the eSIM is: its destination and plan (a traveller's e-mail shows these alone). */
export function planRows(order: Pick<MailOrder, 'destinationName' | 'plan'>, lang: Locale): Row[] {
  const { t, common } = mailTranslations(lang);
  const countries = order.plan.supportedCountries.length;
  return [
    { label: t('order.destination'), value: order.destinationName },
    // A regional plan names how many countries it covers; a country plan's destination says it all.
    ...(countries > 1 ? [{ label: common('package.coverage'), value: common('store.countriesCount', { count: countries }) }] : []),
    {
      label: t('order.plan'),
      value: t('order.planValue', {
        data: formatDataAmount(order.plan.metadata.dataAmount, lang),
        validity: formatValidity(order.plan.validity, order.plan.validityUnit, lang),
      }),
    },
  ];
}

/** An eSIM in one line: its destination, data and validity ('Japan: 5 GB, valid for 30 days'). */
export function planLine(order: Pick<MailOrder, 'destinationName' | 'plan'>, lang: Locale): string {
  const { t } = mailTranslations(lang);
  const plan = t('order.planValue', {
    data: formatDataAmount(order.plan.metadata.dataAmount, lang),
    validity: formatValidity(order.plan.validity, order.plan.validityUnit, lang),
  });
  return `${order.destinationName}: ${plan}`;
}

/** The durable record of the contract (BGB § 312f): the terms version and the withdrawal waiver, with its time. */
export function legalBlocks(order: MailOrder, lang: Locale, siteName: string): Block[] {
  const { t } = mailTranslations(lang);
  return [
    { kind: 'subheading', text: t('order.legalHeading') },
    // A version like 2025-10-01 inside Arabic text keeps its order only inside a left-to-right isolate.
    {
      kind: 'paragraph',
      text: t('order.terms', { version: localeInfo(lang).dir === 'rtl' ? `\u2066${order.termsVersion}\u2069` : order.termsVersion }),
    },
    { kind: 'paragraph', text: t('order.waiver', { date: formatDateTime(order.consentedAt, lang) }) },
    { kind: 'paragraph', text: t('order.keep'), small: true },
    { kind: 'paragraph', text: siteName, small: true },
  ];
}
