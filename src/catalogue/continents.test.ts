import { describe, expect, it } from 'vitest';
import { LOCALE_CODES } from '../i18n/locales.ts';
import { continentName, continentNames, continentOf } from './continents.ts';
import snapshot from './snapshot.json';

const named = (country: string, locale: (typeof LOCALE_CODES)[number]) => continentName(continentOf(country)!, locale);

describe('the continent beside a country’s name (look-alike destinations, issue 22)', () => {
  it('tells the look-alike pairs apart, in several languages', () => {
    expect([named('AT', 'en'), named('AT', 'de'), named('AT', 'ar'), named('AT', 'ja')]).toEqual([
      'Europe',
      'Europa',
      'أوروبا',
      'ヨーロッパ',
    ]);
    expect([named('AU', 'en'), named('AU', 'de'), named('AU', 'ar'), named('AU', 'ja')]).toEqual([
      'Oceania',
      'Ozeanien',
      'أوقيانوسيا',
      'オセアニア',
    ]);
    // Georgia the country, not the US state.
    expect([named('GE', 'en'), named('US', 'en')]).toEqual(['Asia', 'North America']);
    expect([named('GY', 'fr'), named('GN', 'fr')]).toEqual(['Amérique du Sud', 'Afrique']);
    expect([named('SK', 'pl'), named('SI', 'pl')]).toEqual(['Europa', 'Europa']);
    expect(named('NE', 'fr')).toBe('Afrique');
  });

  it('puts the look-alikes that share a continent on it: there the flag tells them apart', () => {
    for (const group of [
      ['NE', 'NG'],
      ['GN', 'GW', 'GQ'],
      ['CG', 'CD'],
      ['SD', 'SS'],
    ])
      for (const country of group) expect(continentOf(country), country).toBe('002');
    for (const country of ['DM', 'DO']) expect(continentOf(country), country).toBe('003');
    for (const country of ['IS', 'IE', 'SK', 'SI']) expect(continentOf(country), country).toBe('150');
  });

  it('gives every country of the catalogue a continent, named in all 12 languages', () => {
    // The raw file: this holds whatever else the snapshot's schema asks of a country.
    const missing = snapshot.countries.map((c) => c.code).filter((code) => continentOf(code) === undefined);
    expect(missing, 'countries CLDR places on no continent').toEqual([]);
    for (const { code } of snapshot.countries) {
      const names = continentNames(code)!;
      for (const locale of LOCALE_CODES) expect(names[locale], `${code} ${locale}`).toMatch(/\S/);
    }
  });

  it('has none for a code that is no country', () => {
    expect(continentOf('europe')).toBeUndefined();
    expect(continentOf('ZZ')).toBeUndefined();
    expect(continentNames('ZZ')).toBeUndefined();
  });
});
