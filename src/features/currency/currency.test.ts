import { describe, expect, it } from 'vitest';
import { guessCurrency, visitorCurrency } from './currency.ts';

describe("the currency picker's first guess", () => {
  it.each([
    [['en-US', 'en'], 'USD'],
    [['en-GB'], 'GBP'],
    [['de-CH', 'de'], 'CHF'],
    [['de-AT'], 'EUR'],
    [['ja'], 'JPY'],
    [['ja-JP'], 'JPY'],
    [['pl'], 'PLN'],
    [['pt-BR', 'pt'], 'BRL'],
    [['en-AU'], 'AUD'],
    [['fr-CA', 'fr'], 'CAD'],
    [['zh-Hant-TW', 'en-US'], 'USD'],
    [['ar-SA', 'en-GB'], 'GBP'],
  ])('%j → %s', (languages, currency) => {
    expect(guessCurrency(languages)).toBe(currency);
  });

  it.each([[['en']], [['de', 'fr']], [[]], [['ar-SA']], [['zh-CN']]])('%j: no guess', (languages) => {
    expect(guessCurrency(languages)).toBeUndefined();
  });

  it("prefers the visitor's pick, then the guess, then the page language's currency", () => {
    expect(visitorCurrency('en', 'GBP', ['en-US'])).toBe('GBP');
    expect(visitorCurrency('en', undefined, ['en-US'])).toBe('USD');
    expect(visitorCurrency('ja', undefined, ['en'])).toBe('JPY');
    expect(visitorCurrency('ar', undefined, ['ar'])).toBe('USD');
    expect(visitorCurrency('de', undefined, [])).toBe('EUR');
  });
});
