import { describe, expect, it } from 'vitest';
import { mailboxKey } from './recipient.ts';

describe('the mailbox an address reaches (the per-recipient cap’s key)', () => {
  it('counts the spellings of one mailbox as one', () => {
    for (const spelling of ['victim@example.com', 'Victim@Example.COM', 'victim+1@example.com', 'victim+a+b@example.com.'])
      expect(mailboxKey(spelling)).toBe('victim@example.com');
    for (const spelling of ['first.last@gmail.com', 'F.i.r.s.t.L.a.s.t+x@googlemail.com', 'firstlast@GMAIL.com'])
      expect(mailboxKey(spelling)).toBe('firstlast@gmail.com');
  });

  it('keeps other mailboxes apart: dots matter outside Gmail, and the domain always', () => {
    expect(mailboxKey('first.last@example.com')).toBe('first.last@example.com');
    expect(mailboxKey('victim@example.org')).not.toBe(mailboxKey('victim@example.com'));
  });
});
