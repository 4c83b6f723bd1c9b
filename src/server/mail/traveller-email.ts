import type { Locale } from '../../i18n/locales.ts';
import { installBlocks, type MailEsim } from './order-email.ts';
import { planRows, type MailOrder } from './order-summary.ts';
import { renderEmail, type Block, type Email } from './render.ts';
import { mailTranslations } from './translations.ts';

/**
 * A traveller's own e-mail (issue 33): the eSIM the buyer gave them, in the buyer's language, with
 * its QR code, codes and the private link to its page. Nothing of the buyer or of the order (its
 * number, price and terms are the buyer's): only the traveller's name, the destination and the plan.
 */
export async function travellerEmail(input: {
  lang: Locale;
  travellerName: string;
  order: Pick<MailOrder, 'destinationName' | 'plan'>;
  esim: MailEsim;
  /** The traveller's page, with its token in the fragment. */
  pageUrl: string;
  installGuideUrl: string;
  siteName: string;
  /** Makes the QR image's content id unique (the order's id is fine: it is not shown). */
  name: string;
}): Promise<Email> {
  const { lang, order, siteName } = input;
  const { t } = mailTranslations(lang);
  const install = await installBlocks(lang, input.esim, input.name);
  const blocks: Block[] = [
    { kind: 'heading', text: t('traveller.heading', { name: input.travellerName }) },
    { kind: 'paragraph', text: t('traveller.intro', { siteName, destination: order.destinationName }) },
    { kind: 'rows', rows: planRows(order, lang) },
    { kind: 'button', href: input.pageUrl, text: t('traveller.pageLink') },
    { kind: 'paragraph', text: t('traveller.pageNote'), small: true },
    { kind: 'subheading', text: t('order.installHeading') },
    ...install.blocks,
    { kind: 'link', href: input.installGuideUrl, text: t('order.guideLink') },
  ];
  return renderEmail(lang, t('traveller.subject', { destination: order.destinationName }), blocks, [install.qr]);
}
