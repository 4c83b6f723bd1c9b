import QRCode from 'qrcode';
import type { Locale } from '../../i18n/locales.ts';
import { legalBlocks, summaryRows, type MailOrder } from './order-summary.ts';
import { renderEmail, type Block, type Email, type MailAttachment } from './render.ts';
import { mailTranslations } from './translations.ts';

/**
 * The order e-mail (DESIGN 6): the confirmation on a durable medium (BGB § 312f) with the order,
 * the price with VAT, the terms version and the withdrawal waiver, and the eSIM itself: the QR
 * code as an inline image, the manual codes, the iPhone one-tap link and the install guide. Those
 * codes go only to an address the accounts service verified (issue 29): whoever installs first owns
 * the eSIM, so a mistyped sign-up address would hand a paid eSIM to a stranger. Otherwise the e-mail
 * says the eSIM waits in My eSIMs and how to confirm the address.
 */

export interface MailEsim {
  /** The LPA string, LPA:1$<SM-DP+ address>$<matching id>: a credential, whoever has it can install the eSIM. */
  activationCode: string;
  smdpAddress: string;
  matchingId: string;
}

/** Apple's one-tap eSIM install link (iOS 17.5 and later), with the LPA string URL-encoded. */
export function iphoneInstallUrl(lpa: string): string {
  return `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(lpa)}`;
}

/** The QR code of the LPA string as a PNG: e-mail clients show PNG, few show SVG. */
function qrPng(lpa: string): Promise<Buffer> {
  return QRCode.toBuffer(lpa, { type: 'png', errorCorrectionLevel: 'M', margin: 4, width: 480 });
}

export async function orderEmail(input: {
  lang: Locale;
  order: MailOrder;
  /** The eSIM's codes, for a verified address; undefined: they stay in My eSIMs. */
  esim: MailEsim | undefined;
  /** In the buyer's language, absolute: the install guide, My eSIMs, the profile (where a confirmation link is sent again). */
  installGuideUrl: string;
  myEsimsUrl: string;
  profileUrl: string;
  siteName: string;
}): Promise<Email> {
  const { lang, order, esim, installGuideUrl, siteName } = input;
  const { t } = mailTranslations(lang);
  const subject = t('order.subject', { destination: order.destinationName, number: order.number });
  const summary: Block[] = [
    { kind: 'subheading', text: t('order.summaryHeading') },
    { kind: 'rows', rows: summaryRows(order, lang) },
    { kind: 'subheading', text: t('order.installHeading') },
  ];

  if (!esim) {
    const blocks: Block[] = [
      { kind: 'heading', text: t('order.heading') },
      { kind: 'paragraph', text: t('order.introUnverified', { siteName }) },
      ...summary,
      { kind: 'paragraph', text: t('order.unverified') },
      { kind: 'button', href: input.myEsimsUrl, text: t('order.myEsimsLink') },
      { kind: 'paragraph', text: t('order.verifyHow'), small: true },
      { kind: 'link', href: input.profileUrl, text: t('order.profileLink') },
      { kind: 'link', href: installGuideUrl, text: t('order.guideLink') },
      ...legalBlocks(order, lang, siteName),
    ];
    return renderEmail(lang, subject, blocks, []);
  }

  const install = await installBlocks(lang, esim, order.number);
  const blocks: Block[] = [
    { kind: 'heading', text: t('order.heading') },
    { kind: 'paragraph', text: t('order.intro', { siteName }) },
    ...summary,
    ...install.blocks,
    { kind: 'link', href: installGuideUrl, text: t('order.guideLink') },
    ...legalBlocks(order, lang, siteName),
  ];
  return renderEmail(lang, subject, blocks, [install.qr]);
}

/**
 * The eSIM itself in an e-mail (the buyer's, a traveller's): the QR code as an inline image, the
 * iPhone one-tap link and the manual codes. `name` makes the image's content id unique in the e-mail.
 */
export async function installBlocks(lang: Locale, esim: MailEsim, name: string): Promise<{ blocks: Block[]; qr: MailAttachment }> {
  const { t } = mailTranslations(lang);
  const cid = `esim-qr-${name.replace(/[^A-Za-z0-9-]/g, '')}@mail`;
  return {
    blocks: [
      { kind: 'paragraph', text: t('order.qrInstructions') },
      { kind: 'image', cid, alt: t('order.qrAlt') },
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
    ],
    qr: { filename: 'esim-qr-code.png', content: await qrPng(esim.activationCode), contentType: 'image/png', cid },
  };
}
