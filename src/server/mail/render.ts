import { localeInfo, type Locale } from '../../i18n/locales.ts';
import { mailTranslations } from './translations.ts';

/**
 * The e-mails' rendering: each e-mail (order-email.ts, top-up-email.ts, refund-email.ts) is a list
 * of blocks, already translated, made here into an HTML part and a plain-text part with the same
 * facts. The HTML is inline-styled tables, as mail programs read it, and loads nothing from outside
 * (images travel as cid parts).
 */

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
  /** Extra header fields, e.g. an alert's List-Unsubscribe (RFC 2369, RFC 8058). */
  headers?: Record<string, string>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A label and its value; `code` ones (order number, SM-DP+ address, activation code) read left to right and in a fixed-width font. */
export type Row = { label: string; value: string; code?: boolean };

/** The parts both the HTML and the text are made of, already translated. */
export type Block =
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

/** Both parts from the same blocks, in the buyer's language; the text part writes 'label: value' as the language does. */
export function renderEmail(lang: Locale, subject: string, blocks: Block[], attachments: MailAttachment[] = []): Email {
  const { t } = mailTranslations(lang);
  return {
    subject,
    text: renderText(blocks, (label, value) => t('field', { label, value })),
    html: renderHtml(lang, subject, blocks),
    attachments,
  };
}
