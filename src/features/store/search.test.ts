import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../catalogue/loader.ts';
import { destinationsFor } from './destinations.ts';
import { foldForSearch, matchesSearch } from './search.ts';

const catalogue = await loadCatalogue();
const find = (locale: 'en' | 'ja' | 'de' | 'ar', query: string) => {
  const { countries, regions } = destinationsFor(catalogue, locale);
  return [...countries, ...regions].filter((d) => matchesSearch(d.search, query)).map((d) => d.code);
};

describe('store search', () => {
  it('folds case, accents and punctuation', () => {
    expect(foldForSearch('  Réunion ')).toBe('reunion');
    expect(foldForSearch('CURAÇAO')).toBe('curacao');
    expect(foldForSearch('Guinea-Bissau')).toBe('guinea bissau');
  });

  it('finds by a partial name, any case', () => {
    expect(find('en', 'jap')).toEqual(['JP']);
    expect(find('en', 'GERM')).toEqual(['DE']);
  });

  it('finds an accented name typed without accents', () => {
    expect(find('en', 'reunion')).toEqual(['RE']);
    expect(find('en', 'curacao')).toEqual(['CW']);
    expect(find('de', 'osterreich')).toEqual(['AT']);
  });

  it('finds by common aliases and by code', () => {
    expect(find('en', 'USA')).toContain('US');
    expect(find('en', 'uk')).toContain('GB');
    expect(find('en', 'czech republic')).toEqual(['CZ']);
    expect(find('en', 'turkey')).toEqual(['TR']);
    expect(find('en', 'mx')).toContain('MX');
  });

  it('finds by the name in the page language and by the English name', () => {
    expect(find('ja', '日本')).toEqual(['JP']);
    expect(find('ja', 'japan')).toEqual(['JP']);
    expect(find('ar', 'اليابان')).toEqual(['JP']);
  });

  it('finds regions too, and nothing for nonsense', () => {
    expect(find('de', 'europa')).toEqual(['europe']);
    expect(find('en', 'middle east')).toEqual(['mena']);
    expect(find('en', 'qwxz')).toEqual([]);
  });

  it('sorts with the language’s collation', () => {
    const german = destinationsFor(catalogue, 'de').countries.map((c) => c.name);
    // 'Österreich' sorts with O, not after Z as a plain code-point sort would put it.
    expect(german.indexOf('Österreich')).toBeLessThan(german.indexOf('Polen'));
    expect(german.indexOf('Österreich')).toBeGreaterThan(german.indexOf('Oman'));
    const english = destinationsFor(catalogue, 'en').countries.map((c) => c.name);
    expect(english.indexOf('Åland Islands')).toBeLessThan(english.indexOf('Albania'));
  });
});
