/**
 * The mailbox an e-mail address reaches, as the key of the per-recipient cap (issue 46 item 3): in
 * lower case, without a `+tag` (most providers deliver `name+anything@` to `name@`), and for Gmail
 * without the dots it ignores and with `googlemail.com` as `gmail.com`. Two spellings of one mailbox
 * count as one, so rotating them does not reset the cap; at worst two people share a count.
 */
export function mailboxKey(email: string): string {
  const at = email.lastIndexOf('@');
  let local = email.slice(0, at).toLowerCase().replace(/\+.*$/, '');
  let domain = email
    .slice(at + 1)
    .toLowerCase()
    .replace(/\.$/, '');
  if (domain === 'googlemail.com') domain = 'gmail.com';
  if (domain === 'gmail.com') local = local.replace(/\./g, '');
  return `${local}@${domain}`;
}
