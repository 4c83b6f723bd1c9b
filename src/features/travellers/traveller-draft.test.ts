import { describe, expect, it } from 'vitest';
import { Traveller } from '../../contract/shop-api.ts';
import { toTraveller, travellerProblems } from './traveller-draft.ts';

describe('a traveller as typed (issue 33)', () => {
  it('lets a cart eSIM stay the buyer’s own when nothing is typed, and asks for a name where one is needed', () => {
    expect(travellerProblems({ name: '', email: '' }, false)).toEqual({});
    expect(travellerProblems({ name: '  ', email: '' }, true)).toEqual({ name: 'nameMissing' });
    // An address alone would send an eSIM to nobody by name.
    expect(travellerProblems({ name: '', email: 'ana@example.com' }, false)).toEqual({ name: 'nameMissing' });
  });

  it('refuses an address that cannot be one, and takes an empty one as none', () => {
    expect(travellerProblems({ name: 'Ana', email: 'ana@' }, false)).toEqual({ email: 'emailInvalid' });
    expect(travellerProblems({ name: 'Ana', email: ' ana@example.com ' }, false)).toEqual({});
  });

  it('sends what the API takes: trimmed, no empty address, nothing for an empty draft', () => {
    expect(toTraveller({ name: '', email: '' })).toBeUndefined();
    expect(toTraveller({ name: ' Ana ', email: '' })).toEqual({ name: 'Ana' });
    const ana = toTraveller({ name: 'Ana', email: ' ana@example.com ' });
    expect(ana).toEqual({ name: 'Ana', email: 'ana@example.com' });
    expect(Traveller.parse(ana)).toEqual(ana);
  });
});
