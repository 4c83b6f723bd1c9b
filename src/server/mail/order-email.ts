import QRCode from 'qrcode';
import type { Price } from '../../catalogue/schema.ts';
import { REFUND_PROCESSING_BUSINESS_DAYS } from '../../config/constants.ts';
import { formatDataAmount, formatDateTime, formatPrice, formatValidity } from '../../lib/format.ts';
import { localeInfo, type Locale } from '../../i18n/locales.ts';
import type { OrderView } from '../../contract/shop-api.ts';
import { mailTranslations } from './translations.ts';

/**
 * The order e-mail (DESIGN 6): the confirmation on a durable medium (BGB § 312f) with the order,
 * the price with VAT, the terms version and the withdrawal waiver, and the eSIM itself: the QR
 * code as an inline image, the manual codes, the iPhone one-tap link and the install guide.
 * Also the refund e-mail. Each is built in the buyer's language, as an HTML and a plain-text part
 * with the same facts; the HTML loads nothing from outside (the QR code travels as a cid part).
 */

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

export interface MailEsim {
  /** The LPA string, LPA:1$<SM-DP+ address>$<matching id>: a credential, whoever has it can install the eSIM. */
  activationCode: string;
  smdpAddress: string;
  matchingId: string;
}

export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
  /** Referenced from the HTML as src="cid:…". */
  cid: string;
}

export interface Email {
  subject: string;
  text: string;
  html: string;
  attachments: MailAttachment[];
}

/** Apple's one-tap eSIM install link (iOS 17.5 and later), with the LPA string URL-encoded. */
export function iphoneInstallUrl(lpa: string): string {
  return `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(lpa)}`;
}

/** The QR code of the LPA string as a PNG: e-mail clients show PNG, few show SVG. */
function qrPng(lpa: string): Promise<Buffer> {
  return QRCode.toBuffer(lpa, { type: 'png', errorCorrectionLevel: 'M', margin: 4, width: 480 });
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A label and its value; `code` ones (order number, SM-DP+ address, activation code) read left to right and in a fixed-width font. */
type Row = { label: string; value: string; code?: boolean };

/** The parts both the HTML and the text are made of, already translated. */
type Block =
  | { kind: 'heading'; text: string }
  | { kind: 'subheading'; text: string }
  | { kind: 'paragraph'; text: string; small?: boolean }
  | { kind: 'rows'; rows: Row[] }
  /** Codes to copy: each label above its code, which gets the whole width. */
  | { kind: 'codes'; rows: Row[] }
  | { kind: 'image'; cid: string; alt: string }
  | { kind: 'button'; href: string; text: string }
  | { kind: 'link'; href: string; text: string };

const COLORS = { text: '#18181b', muted: '#52525b', page: '#f4f4f5', card: '#ffffff', accent: '#1d4ed8', line: '#e4e4e7' };

function renderHtml(lang: Locale, title: string, blocks: Block[]): string {
  const dir = localeInfo(lang).dir;
  // Outlook ignores text-align: start, so the side is spelled out.
  const start = dir === 'rtl' ? 'right' : 'left';
  const p = `margin:0 0 16px;text-align:${start};`;
  // Codes, links and numbers read left to right inside Arabic text.
  const ltr = (text: string, code = false) =>
    `<span dir="ltr" style="${code ? 'font-family:Consolas,Menlo,monospace;word-break:break-all;' : ''}unicode-bidi:isolate;">${escapeHtml(text)}</span>`;
  const body = blocks
    .map((block) => {
      switch (block.kind) {
        case 'heading':
          return `<h1 style="margin:0 0 16px;font-size:24px;line-height:1.3;text-align:${start};">${escapeHtml(block.text)}</h1>`;
        case 'subheading':
          return `<h2 style="margin:24px 0 12px;font-size:18px;line-height:1.3;text-align:${start};">${escapeHtml(block.text)}</h2>`;
        case 'paragraph':
          return `<p style="${p}${block.small ? `font-size:14px;color:${COLORS.muted};` : ''}">${escapeHtml(block.text)}</p>`;
        case 'rows':
          // A data table (no role="presentation"): screen readers pair each value with its label.
          return `<table width="100%" cellpadding="0" cellspacing="0" style="margin:0 0 16px;border-collapse:collapse;">${block.rows
            .map(
              (row) =>
                `<tr><th scope="row" style="padding:6px 0;padding-${dir === 'rtl' ? 'left' : 'right'}:16px;border-bottom:1px solid ${COLORS.line};text-align:${start};vertical-align:top;font-weight:normal;color:${COLORS.muted};width:40%;">${escapeHtml(row.label)}</th>` +
                `<td style="padding:6px 0;border-bottom:1px solid ${COLORS.line};text-align:${start};vertical-align:top;">${row.code ? ltr(row.value, true) : escapeHtml(row.value)}</td></tr>`,
            )
            .join('')}</table>`;
        case 'codes':
          return block.rows
            .map(
              (row) =>
                `<p style="margin:0 0 4px;text-align:${start};color:${COLORS.muted};">${escapeHtml(row.label)}</p>` +
                `<p style="margin:0 0 12px;padding:8px 10px;border-radius:4px;background:${COLORS.page};text-align:left;" dir="ltr">${ltr(row.value, true)}</p>`,
            )
            .join('');
        case 'image':
          return `<p style="margin:0 0 16px;text-align:center;"><img src="cid:${escapeHtml(block.cid)}" alt="${escapeHtml(block.alt)}" width="240" height="240" style="display:inline-block;width:240px;height:240px;border:0;"></p>`;
        case 'button':
          return `<p style="margin:0 0 8px;text-align:${start};"><a href="${escapeHtml(block.href)}" style="display:inline-block;padding:12px 20px;border-radius:6px;background:${COLORS.accent};color:#ffffff;font-weight:bold;text-decoration:none;">${escapeHtml(block.text)}</a></p>`;
        case 'link':
          return `<p style="${p}"><a href="${escapeHtml(block.href)}" style="color:${COLORS.accent};">${escapeHtml(block.text)}</a></p>`;
      }
    })
    .join('\n');
  return `<!DOCTYPE html>
<html lang="${lang}" dir="${dir}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body dir="${dir}" style="margin:0;padding:0;background:${COLORS.page};">
<table role="presentation" dir="${dir}" width="100%" cellpadding="0" cellspacing="0" style="background:${COLORS.page};"><tr><td align="center" style="padding:24px 12px;">
<table role="presentation" dir="${dir}" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px;background:${COLORS.card};border-radius:8px;"><tr><td style="padding:24px;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:${COLORS.text};text-align:${start};">
${body}
</td></tr></table>
</td></tr></table>
</body>
</html>
`;
}

function renderText(blocks: Block[], field: (label: string, value: string) => string): string {
  return (
    blocks
      .map((block) => {
        switch (block.kind) {
          case 'heading':
            return `${block.text}\n${'='.repeat(Math.min(block.text.length, 60))}`;
          case 'subheading':
            return `\n${block.text}\n${'-'.repeat(Math.min(block.text.length, 60))}`;
          case 'paragraph':
            return block.text;
          case 'rows':
          case 'codes':
            return block.rows.map((row) => field(row.label, row.value)).join('\n');
          case 'image':
            return undefined; // The QR code is the attached image; the text part has the codes below it.
          case 'button':
          case 'link':
            return `${block.text}:\n${block.href}`;
        }
      })
      .filter((part) => part !== undefined)
      .join('\n\n') + '\n'
  );
}

/** The order as a table: number, date, destination (and coverage of a regional plan), plan, price with VAT. */
function summaryRows(order: MailOrder, lang: Locale): Row[] {
  const { t, common } = mailTranslations(lang);
  const countries = order.plan.supportedCountries.length;
  return [
    { label: t('order.number'), value: order.number, code: true },
    { label: t('order.date'), value: formatDateTime(order.createdAt, lang) },
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
    { label: t('order.total'), value: t('order.totalValue', { price: formatPrice(order.total, lang) }) },
  ];
}

/** The durable record of the contract (BGB § 312f): the terms version and the withdrawal waiver, with its time. */
function legalBlocks(order: MailOrder, lang: Locale, siteName: string): Block[] {
  const { t } = mailTranslations(lang);
  return [
    { kind: 'subheading', text: t('order.legalHeading') },
    // A version like 2025-10-01 inside Arabic text keeps its order only inside a left-to-right isolate.
    { kind: 'paragraph', text: t('order.terms', { version: localeInfo(lang).dir === 'rtl' ? `\u2066${order.termsVersion}\u2069` : order.termsVersion }) },
    { kind: 'paragraph', text: t('order.waiver', { date: formatDateTime(order.consentedAt, lang) }) },
    { kind: 'paragraph', text: t('order.keep'), small: true },
    { kind: 'paragraph', text: siteName, small: true },
  ];
}

/** A top-up's confirmation: the same record of the contract, and the way to the eSIM's data in My eSIMs (nothing to install). */
export function topUpEmail(input: { lang: Locale; order: MailOrder; myEsimsUrl: string; siteName: string }): Email {
  const { lang, order, myEsimsUrl, siteName } = input;
  const { t } = mailTranslations(lang);
  const subject = t('topUp.subject', { number: order.number });
  const blocks: Block[] = [
    { kind: 'heading', text: t('topUp.heading') },
    { kind: 'paragraph', text: t('topUp.intro', { destination: order.destinationName }) },
    { kind: 'subheading', text: t('order.summaryHeading') },
    { kind: 'rows', rows: summaryRows(order, lang) },
    { kind: 'link', href: myEsimsUrl, text: t('topUp.myEsims') },
    ...legalBlocks(order, lang, siteName),
  ];
  return { subject, text: renderText(blocks, (label, value) => t('field', { label, value })), html: renderHtml(lang, subject, blocks), attachments: [] };
}

export async function orderEmail(input: {
  lang: Locale;
  order: MailOrder;
  esim: MailEsim;
  /** The install guide in the buyer's language, absolute. */
  installGuideUrl: string;
  siteName: string;
}): Promise<Email> {
  const { lang, order, esim, installGuideUrl, siteName } = input;
  const { t } = mailTranslations(lang);
  const qrCid = `esim-qr-${order.number.replace(/[^A-Za-z0-9-]/g, '')}@mail`;
  const subject = t('order.subject', { destination: order.destinationName, number: order.number });

  const blocks: Block[] = [
    { kind: 'heading', text: t('order.heading') },
    { kind: 'paragraph', text: t('order.intro', { siteName }) },
    { kind: 'subheading', text: t('order.summaryHeading') },
    { kind: 'rows', rows: summaryRows(order, lang) },
    { kind: 'subheading', text: t('order.installHeading') },
    { kind: 'paragraph', text: t('order.qrInstructions') },
    { kind: 'image', cid: qrCid, alt: t('order.qrAlt') },
    { kind: 'button', href: iphoneInstallUrl(esim.activationCode), text: t('order.iphoneLink') },
    { kind: 'paragraph', text: t('order.iphoneNote'), small: true },
    { kind: 'subheading', text: t('order.manualHeading') },
    {
      kind: 'codes',
      rows: [
        { label: t('order.smdpAddress'), value: esim.smdpAddress, code: true },
        { label: t('order.activationCode'), value: esim.matchingId, code: true },
        { label: t('order.lpa'), value: esim.activationCode, code: true },
      ],
    },
    { kind: 'paragraph', text: t('order.keepPrivate'), small: true },
    { kind: 'link', href: installGuideUrl, text: t('order.guideLink') },
    ...legalBlocks(order, lang, siteName),
  ];

  return {
    subject,
    text: renderText(blocks, (label, value) => t('field', { label, value })),
    html: renderHtml(lang, subject, blocks),
    attachments: [{ filename: 'esim-qr-code.png', content: await qrPng(esim.activationCode), contentType: 'image/png', cid: qrCid }],
  };
}

export type RefundReason = 'not_delivered' | 'requested';

export function refundEmail(input: {
  lang: Locale;
  order: Pick<MailOrder, 'number' | 'total'>;
  reason: RefundReason;
  siteName: string;
}): Email {
  const { lang, order, reason, siteName } = input;
  const { t } = mailTranslations(lang);
  const subject = t('refund.subject', { number: order.number });
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
  return {
    subject,
    text: renderText(blocks, (label, value) => t('field', { label, value })),
    html: renderHtml(lang, subject, blocks),
    attachments: [],
  };
}
