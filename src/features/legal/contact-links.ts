import { PROVIDER, phoneHref } from '../../config/provider.ts';

export interface Segment {
  text: string;
  /** Set where the text is one of our contact details: a mailto: or tel: link. */
  href?: string;
}

/** Our e-mail address and telephone number as they appear in the legal texts, with their links. */
export const CONTACT_LINKS: readonly Required<Segment>[] = [
  { text: PROVIDER.supportEmail, href: `mailto:${PROVIDER.supportEmail}` },
  ...(phoneHref(PROVIDER.phone) ? [{ text: PROVIDER.phone, href: phoneHref(PROVIDER.phone)! }] : []),
];

/**
 * Splits a translated paragraph so that each contact detail in it becomes a link: the legal
 * texts are plain strings with the values filled in, and a reader should not have to copy an
 * address out of them.
 */
export function linkContacts(paragraph: string, links: readonly Required<Segment>[] = CONTACT_LINKS): Segment[] {
  const segments: Segment[] = [];
  let rest = paragraph;
  while (rest) {
    const hits = links.map((link) => ({ link, at: rest.indexOf(link.text) })).filter((hit) => hit.at >= 0);
    if (hits.length === 0) break;
    const { link, at } = hits.reduce((first, hit) => (hit.at < first.at ? hit : first));
    if (at > 0) segments.push({ text: rest.slice(0, at) });
    segments.push(link);
    rest = rest.slice(at + link.text.length);
  }
  if (rest) segments.push({ text: rest });
  return segments;
}
