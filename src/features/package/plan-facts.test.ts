import { describe, expect, it } from 'vitest';
import type { Package, PlanFacts } from '../../catalogue/schema.ts';
import { LOCALE_CODES, type Locale } from '../../i18n/locales.ts';
import { useTranslations } from '../../i18n/t.ts';
import { formatDataAmount, formatSpeed } from '../../lib/format.ts';
import en from '../../../locales/en/plans.json';
import { dataText, factTexts, networkGroups, networksText, splitFacts } from './plan-facts.ts';

const baseFacts: PlanFacts = {
  networks: [{ country: 'DE', operators: [{ name: 'Telekom', networkType: '5G' }] }],
  data: { kind: 'total' },
  validityStarts: 'install',
  installWithinDays: 30,
  topUp: true,
  hotspot: null,
  sms: false,
  trafficExit: null,
};
const plan = (data: PlanFacts['data'], facts: Partial<PlanFacts> = {}): Pick<Package, 'id' | 'metadata' | 'facts'> => ({
  id: 'p',
  metadata: { dataAmount: { value: 1.5, unit: 'GB' } },
  facts: { ...baseFacts, ...facts, data },
});

/** Each plan type, with the English template of its one-line summary and the speed it names. */
const TYPES = [
  { name: 'total', data: { kind: 'total' }, english: en.data.total, kbps: undefined },
  { name: 'daily, then slowed', data: { kind: 'daily', after: { slowedToKbps: 512 } }, english: en.summary.dailySlowed, kbps: 512 },
  { name: 'daily, then cut', data: { kind: 'daily', after: 'cut' }, english: en.summary.dailyCut, kbps: undefined },
  { name: 'unlimited', data: { kind: 'unlimited', after: { slowedToKbps: 1500 } }, english: en.summary.unlimited, kbps: 1500 },
] as const satisfies readonly { name: string; data: PlanFacts['data']; english: string; kbps: number | undefined }[];

const fill = (template: string, values: Record<string, string>) => template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key]!);

describe('the text of each plan type, in all 12 languages', () => {
  for (const locale of LOCALE_CODES) {
    for (const type of TYPES) {
      it(`${type.name} in ${locale}: translated, with the language's figures`, () => {
        const amount = formatDataAmount({ value: 1.5, unit: 'GB' }, locale);
        const speed = type.kbps === undefined ? '' : formatSpeed(type.kbps, locale);
        const text = dataText(plan(type.data), locale, useTranslations(locale, 'plans'));
        expect(text.summary).toContain(amount);
        if (type.kbps !== undefined) expect(text.summary).toContain(speed);
        if (locale !== 'en') expect(text.summary).not.toBe(fill(type.english, { amount, speed }));
        else expect(text.summary).toBe(fill(type.english, { amount, speed }));
        // The card: a total or daily volume is its headline, an unlimited plan says so instead of its fair-use volume.
        if (type.data.kind === 'unlimited') expect(text.headline).not.toContain(amount);
        else expect(text.headline).toContain(amount);
        expect(text.limit === undefined).toBe(type.data.kind === 'total');
      });
    }
  }

  it('writes speeds from 1000 kbit/s on in Mbit/s, as the language does', () => {
    expect(formatSpeed(512, 'en')).toBe(new Intl.NumberFormat('en', { style: 'unit', unit: 'kilobit-per-second' }).format(512));
    expect(formatSpeed(1000, 'en')).toBe(new Intl.NumberFormat('en', { style: 'unit', unit: 'megabit-per-second' }).format(1));
    expect(formatSpeed(1500, 'de')).toBe(new Intl.NumberFormat('de', { style: 'unit', unit: 'megabit-per-second' }).format(1.5));
    expect(dataText(plan({ kind: 'unlimited', after: { slowedToKbps: 1000 } }), 'en', useTranslations('en', 'plans')).summary).toBe(
      `Unlimited, fair use ${formatDataAmount({ value: 1.5, unit: 'GB' }, 'en')}/day then ${formatSpeed(1000, 'en')}`,
    );
  });
});

describe('plan facts', () => {
  const places = { destination: 'Germany', countryName: (code: string) => ({ HK: 'Hong Kong' })[code] ?? code };
  const texts = (facts: Partial<PlanFacts>, locale: Locale = 'en') =>
    factTexts({ ...baseFacts, ...facts }, useTranslations(locale, 'plans'), places).map((f) => f.text);

  it('says when validity starts, the install-by time, top-up; hotspot only where the partner states it; SMS when it has them', () => {
    expect(texts({})).toEqual(['Validity starts when you install it', 'Install within 30 days of purchase', 'Can be topped up']);
    expect(
      texts({ validityStarts: 'first-connection', installWithinDays: 1, topUp: false, hotspot: false, sms: true, trafficExit: 'HK' }),
    ).toEqual([
      'Validity starts when you first connect in Germany',
      'Install within 1 day of purchase',
      'Cannot be topped up',
      'No hotspot',
      'Receives SMS',
      'Traffic exits via Hong Kong',
    ]);
    expect(texts({ hotspot: true })).toContain('Hotspot allowed');
  });

  it('counts the days to install with the language’s plural forms', () => {
    const pl = (days: number) => texts({ installWithinDays: days }, 'pl')[1];
    expect(pl(1)).toBe('Zainstaluj w ciągu 1 dnia od zakupu');
    expect(pl(3)).toBe('Zainstaluj w ciągu 3 dni od zakupu');
    expect(texts({ installWithinDays: 2 }, 'ar')[1]).toBe('ثبّتها خلال يومين من الشراء');
    expect(texts({ installWithinDays: 30 }, 'ar')[1]).toBe('ثبّتها خلال 30 يومًا من الشراء');
  });

  it('says facts every plan shares once, and each plan’s own on its card', () => {
    const a = factTexts({ ...baseFacts, topUp: true }, useTranslations('en', 'plans'), places);
    const b = factTexts({ ...baseFacts, topUp: false, hotspot: true }, useTranslations('en', 'plans'), places);
    expect(splitFacts([a, b])).toEqual({
      common: ['Validity starts when you install it', 'Install within 30 days of purchase'],
      own: [['Can be topped up'], ['Cannot be topped up', 'Hotspot allowed']],
    });
    expect(splitFacts([a]).own).toEqual([[]]);
  });
});

describe('networks', () => {
  it('groups a country’s operators by their best network type, best first, listed as the language lists them', () => {
    const operators = [
      { name: 'O2', networkType: '4G' },
      { name: 'Telekom', networkType: '5G' },
      { name: 'Vodafone', networkType: '5G' },
      { name: 'E-Plus', networkType: '3G' },
    ] as const;
    expect(networksText(operators, 'en')).toBe('Telekom, Vodafone · 5G; O2 · 4G; E-Plus · 3G');
    expect(networksText(operators, 'de')).toBe('Telekom und Vodafone · 5G; O2 · 4G; E-Plus · 3G');
    expect(networksText(operators, 'ar')).toBe(
      `${new Intl.ListFormat('ar', { type: 'conjunction', style: 'narrow' }).format(['Telekom', 'Vodafone'])} · 5G؛ O2 · 4G؛ E-Plus · 3G`,
    );
  });

  it('lists the networks once for the plans that share them, countries by name in the language', () => {
    const europe = [
      { country: 'FR', operators: [{ name: 'Orange', networkType: '5G' as const }] },
      { country: 'DE', operators: [{ name: 'Telekom', networkType: '4G' as const }] },
    ];
    const name = (code: string) => ({ FR: 'Frankreich', DE: 'Deutschland' })[code]!;
    const packages = [
      { id: 'a', facts: { ...baseFacts, networks: europe } },
      { id: 'b', facts: { ...baseFacts, networks: [...europe].reverse() } },
      { id: 'c', facts: { ...baseFacts, networks: europe.slice(0, 1) } },
    ];
    expect(networkGroups(packages, 'de', name)).toEqual([
      {
        planIds: ['a', 'b'],
        countries: [
          { code: 'DE', name: 'Deutschland', networks: 'Telekom · 4G' },
          { code: 'FR', name: 'Frankreich', networks: 'Orange · 5G' },
        ],
      },
      { planIds: ['c'], countries: [{ code: 'FR', name: 'Frankreich', networks: 'Orange · 5G' }] },
    ]);
  });
});
