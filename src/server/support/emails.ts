import { supportReference } from '../../contract/support-api.ts';
import { localizePath } from '../../i18n/paths.ts';
import { LOCALE_CODES, type Locale } from '../../i18n/locales.ts';
import { renderEmail, type Block, type Email } from '../mail/render.ts';
import { mailTranslations } from '../mail/translations.ts';
import type { SupportRequestRow } from './store.ts';

const localeOf = (lang: string): Locale => ((LOCALE_CODES as readonly string[]).includes(lang) ? (lang as Locale) : 'en');

/**
 * To the buyer, in their language: we have the request and its reference. What they wrote is quoted
 * only to an address they proved theirs (`proven`: a verified account's): to anyone else's the
 * e-mail is our fixed text and the reference, with a line for whoever did not write, so the form
 * carries nobody's words to an address they typed (issue 46 item 3).
 */
export function supportReceivedEmail(input: {
  request: SupportRequestRow;
  message: string;
  proven: boolean;
  siteName: string;
  siteUrl: string;
}): Email {
  const lang = localeOf(input.request.lang);
  const { t } = mailTranslations(lang);
  const reference = supportReference(input.request.id);
  const blocks: Block[] = [
    { kind: 'heading', text: t('support.receivedHeading') },
    { kind: 'paragraph', text: t('support.received') },
    { kind: 'rows', rows: [{ label: t('support.reference'), value: reference, code: true }] },
    ...(input.proven
      ? [
          { kind: 'subheading' as const, text: t('support.yourMessage') },
          { kind: 'paragraph' as const, text: input.message },
        ]
      : [{ kind: 'paragraph' as const, text: t('support.notYou') }]),
    ...(input.request.uid
      ? [{ kind: 'link' as const, href: `${input.siteUrl}${localizePath(lang, '/profile')}#support`, text: t('support.seeProfile') }]
      : []),
    { kind: 'paragraph', text: t('support.thanks', { siteName: input.siteName }), small: true },
  ];
  return renderEmail(lang, t('support.receivedSubject', { reference }), blocks);
}

/** To the buyer, in their language: the operator's reply as they wrote it. */
export function supportReplyEmail(input: { request: SupportRequestRow; reply: string; siteName: string; siteUrl: string }): Email {
  const lang = localeOf(input.request.lang);
  const { t } = mailTranslations(lang);
  const reference = supportReference(input.request.id);
  const blocks: Block[] = [
    { kind: 'heading', text: t('support.replyHeading') },
    { kind: 'rows', rows: [{ label: t('support.reference'), value: reference, code: true }] },
    { kind: 'paragraph', text: input.reply },
    ...(input.request.uid
      ? [{ kind: 'link' as const, href: `${input.siteUrl}${localizePath(lang, '/profile')}#support`, text: t('support.answerOnProfile') }]
      : [{ kind: 'paragraph' as const, text: t('support.answerByForm') }]),
    { kind: 'paragraph', text: t('support.thanks', { siteName: input.siteName }), small: true },
  ];
  return renderEmail(lang, t('support.replySubject', { reference }), blocks);
}

/** To the provider's support address, in English (the back office's first language): a new request or message, where to answer it. */
export function supportNoticeEmail(input: { request: SupportRequestRow; message: string; siteUrl: string; followUp: boolean }): Email {
  const { request } = input;
  const reference = supportReference(request.id);
  const d = request.diagnosis;
  const rows = [
    { label: 'From', value: `${request.email}${request.uid ? '' : ' (visitor)'}` },
    { label: 'Language', value: request.lang },
    ...(request.order_number ? [{ label: 'Order number given', value: request.order_number, code: true }] : []),
    ...Object.entries(d).map(([key, value]) => ({ label: key, value: typeof value === 'string' ? value : JSON.stringify(value) })),
  ];
  const blocks: Block[] = [
    { kind: 'heading', text: input.followUp ? `New message on ${reference}` : `New support request ${reference}` },
    { kind: 'rows', rows },
    { kind: 'paragraph', text: input.message },
    { kind: 'link', href: `${input.siteUrl}/ops?support=${request.id}`, text: 'Answer in the back office' },
  ];
  return renderEmail('en', input.followUp ? `Support: new message on ${reference}` : `Support: new request ${reference}`, blocks);
}
