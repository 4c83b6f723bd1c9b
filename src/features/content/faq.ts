import {
  ACTIVATION_MINUTES,
  REFUND_PROCESSING_BUSINESS_DAYS,
  REFUND_WINDOW_DAYS,
} from '../../config/constants.ts';
import type { Locale } from '../../i18n/locales.ts';
import { useTranslations } from '../../i18n/t.ts';

/** The spec's figures (section 9), filled into the FAQ, install guide and terms. */
export const CONTENT_FIGURES = {
  activationMin: ACTIVATION_MINUTES.usualMin,
  activationMax: ACTIVATION_MINUTES.usualMax,
  activationWorstHours: ACTIVATION_MINUTES.worstCaseHours,
  refundDays: REFUND_WINDOW_DAYS,
  refundMin: REFUND_PROCESSING_BUSINESS_DAYS.min,
  refundMax: REFUND_PROCESSING_BUSINESS_DAYS.max,
};

export function faqItems(locale: Locale): { question: string; answer: string }[] {
  return useTranslations(locale, 'faq')('items', { returnObjects: true, ...CONTENT_FIGURES });
}

/** FAQPage structured data for search engines, safe to embed in a <script> element. */
export function faqJsonLd(locale: Locale): string {
  const data = {
    '@context': 'https://schema.org',
    '@type': 'FAQPage',
    inLanguage: locale,
    mainEntity: faqItems(locale).map((item) => ({
      '@type': 'Question',
      name: item.question,
      acceptedAnswer: { '@type': 'Answer', text: item.answer },
    })),
  };
  return JSON.stringify(data).replace(/</g, '\\u003c');
}
