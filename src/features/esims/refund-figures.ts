import { REFUND_PROCESSING_BUSINESS_DAYS, REFUND_WINDOW_DAYS } from '../../config/constants.ts';

/** The FAQ's refund figures (the same placeholder names as faq.json's), filled in by the build and again by fill(). */
export const refundFigures = {
  refundDays: String(REFUND_WINDOW_DAYS),
  refundMin: String(REFUND_PROCESSING_BUSINESS_DAYS.min),
  refundMax: String(REFUND_PROCESSING_BUSINESS_DAYS.max),
};
