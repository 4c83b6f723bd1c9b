import { describe, expect, it } from 'vitest';
import { needsConnecting } from './needs-connecting.ts';

const unused = { usedBytes: 0, totalBytes: 2 ** 30 };

describe('needsConnecting', () => {
  it('asks to connect an eSIM on the phone that has used no data (or whose use is not known)', () => {
    expect(needsConnecting({ status: 'active', usage: unused, installStep: 'installed' })).toBe(true);
    expect(needsConnecting({ status: 'active', usage: unused, installStep: 'enabled' })).toBe(true);
    expect(needsConnecting({ status: 'active', usage: null, installStep: 'in_use' })).toBe(true);
    // No step known: an active eSIM is installed.
    expect(needsConnecting({ status: 'active', usage: unused, installStep: null })).toBe(true);
    expect(needsConnecting({ status: 'active', usage: unused })).toBe(true);
  });
  it('not before it is installed, once data flows, once deleted, or once it has ended', () => {
    expect(needsConnecting({ status: 'ready', usage: unused, installStep: 'released' })).toBe(false);
    expect(needsConnecting({ status: 'ready', usage: unused, installStep: 'downloaded' })).toBe(false);
    expect(needsConnecting({ status: 'ready', usage: unused, installStep: null })).toBe(false);
    // A step ahead of the status (a fixture, a race): the status decides.
    expect(needsConnecting({ status: 'ready', usage: unused, installStep: 'in_use' })).toBe(false);
    expect(needsConnecting({ status: 'active', usage: { usedBytes: 1, totalBytes: 2 ** 30 }, installStep: 'in_use' })).toBe(false);
    expect(needsConnecting({ status: 'active', usage: unused, installStep: 'deleted' })).toBe(false);
    expect(needsConnecting({ status: 'expired', usage: unused, installStep: 'expired' })).toBe(false);
    expect(needsConnecting({ status: 'refunded', usage: unused, installStep: null })).toBe(false);
  });
});
