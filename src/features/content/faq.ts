import { ACTIVATION_MINUTES, REFUND_PROCESSING_BUSINESS_DAYS, REFUND_WINDOW_DAYS } from '../../config/constants.ts';
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

/** FAQPage structured data for search engines. */
export function faqData(locale: Locale): Record<string, unknown> {
  return {
    '@type': 'FAQPage',
    inLanguage: locale,
    mainEntity: faqItems(locale).map((item) => ({
      '@type': 'Question',
      name: item.question,
      acceptedAnswer: { '@type': 'Answer', text: item.answer },
    })),
  };
}
