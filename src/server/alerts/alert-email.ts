import { alertEmailTexts, alertTexts, type AlertTextInput } from './messages.ts';
import { renderEmail, type Block, type Email } from '../mail/render.ts';

export interface AlertEmailInput extends AlertTextInput {
  /** Checkout for a top-up of this eSIM; undefined when it cannot be topped up. */
  topUpUrl: string | undefined;
  myEsimsUrl: string;
  /** The API's one-click URL (unsubscribe-token.ts unsubscribeUrl): the List-Unsubscribe header, for mail programs. */
  unsubscribeUrl: string;
  /** The site's page that asks before unsubscribing (unsubscribePageUrl): the footer's link, for people. */
  unsubscribePageUrl: string;
  /** The profile's alert switches. */
  preferencesUrl: string;
  siteName: string;
}

/**
 * An alert's e-mail (issue 23): what happened to the eSIM, a top-up button, and a footer saying why
 * it came and how to stop this kind. Unlike the order and refund e-mails it is optional, so it
 * carries one-click unsubscribe (RFC 8058 over RFC 2369's List-Unsubscribe): a mail program POSTs
 * `List-Unsubscribe=One-Click` to the URL; the visible link goes to the site's page, which asks
 * first, since link scanners open every link in a mail.
 */
export function alertEmail(input: AlertEmailInput): Email {
  const texts = alertTexts(input);
  const words = alertEmailTexts(input.lang, input.siteName);
  const blocks: Block[] = [
    { kind: 'heading', text: texts.heading },
    { kind: 'paragraph', text: texts.body },
    input.topUpUrl
      ? { kind: 'button', href: input.topUpUrl, text: words.topUp }
      : { kind: 'button', href: input.myEsimsUrl, text: words.myEsims },
    ...(input.topUpUrl ? [{ kind: 'link', href: input.myEsimsUrl, text: words.myEsims } as const] : []),
    { kind: 'paragraph', text: words.reason, small: true },
    { kind: 'link', href: input.preferencesUrl, text: words.manage },
    { kind: 'link', href: input.unsubscribePageUrl, text: words.unsubscribe },
  ];
  return {
    ...renderEmail(input.lang, texts.subject, blocks),
    headers: { 'List-Unsubscribe': `<${input.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}
