// Generates the committed catalogue snapshot (src/catalogue/snapshot.json) and the flag files
// (public/flags/). Run it after upgrading cldr-core, country-flag-icons or i18n-iso-countries:
//   npm run catalogue:generate
// Sources (DESIGN 4): UN M49 containment from cldr-core, names from Intl.DisplayNames in all 12
// languages (baked in so they do not drift with Node's ICU), flags from country-flag-icons,
// search aliases from i18n-iso-countries, and a plan matrix sized by population (cldr-core).
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCALE_CODES, type Locale } from '../src/i18n/locales.ts';
import type { Package } from '../src/catalogue/schema.ts';
import { SNAPSHOT_FILE, parseSnapshot } from '../src/catalogue/snapshot.ts';

const require = createRequire(import.meta.url);
const version = (pkg: string) => (require(`${pkg}/package.json`) as { version: string }).version;
const containment: Record<string, { _contains?: string[] }> =
  require('cldr-core/supplemental/territoryContainment.json').supplemental.territoryContainment;
const territoryInfo: Record<string, { _population?: string }> =
  require('cldr-core/supplemental/territoryInfo.json').supplemental.territoryInfo;
const isoEnglish: { countries: Record<string, string | string[]> } = require('i18n-iso-countries/langs/en.json');
const FLAGS_SOURCE = join(dirname(require.resolve('country-flag-icons/package.json')), '3x2');

/** Uninhabited territories sell no data plans (DESIGN 4); EA, IC and CQ are not ISO countries. */
const EXCLUDED = new Set(['AQ', 'BV', 'HM', 'TF', 'GS', 'UM', 'EA', 'IC', 'CQ']);
/** Intl's long names for these read like legal titles ('Hong Kong SAR China'); use the short ones. */
const SHORT_NAME = new Set(['HK', 'MO', 'PS', 'MM']);

function leaves(code: string): string[] {
  const children = containment[code]?._contains;
  if (!children) return /^[A-Z]{2}$/.test(code) ? [code] : [];
  return children.flatMap(leaves);
}
const only = (codes: string[]) => [...new Set(codes)].filter((c) => !EXCLUDED.has(c)).sort();
const without = (codes: string[], drop: string[]) => codes.filter((c) => !drop.includes(c));

// Regions of DESIGN 4, from UN M49 containment with the adjustments a traveller expects.
const CAUCASUS = ['AM', 'AZ', 'GE'];
const westernAsia = leaves('145');
const REGIONS: Record<string, string[]> = {
  europe: only([...leaves('150'), 'CY', 'TR']),
  asia: only([...leaves('143'), ...leaves('030'), ...without(leaves('034'), ['IR']), ...leaves('035'), ...CAUCASUS]),
  mena: only([...without(westernAsia, [...CAUCASUS, 'CY']), 'IR', ...leaves('015')]),
  africa: only(leaves('002')),
  'north-america': only([...leaves('021'), 'MX']),
  'latin-america': only([...leaves('013'), ...leaves('005')]),
  caribbean: only(leaves('029')),
  oceania: only(without(leaves('009'), leaves('QO'))),
};
const countryCodes = only(Object.values(REGIONS).flat());
REGIONS.global = countryCodes;

function names(code: string): Record<Locale, string> {
  return Object.fromEntries(
    LOCALE_CODES.map((locale) => {
      const style = SHORT_NAME.has(code) ? 'short' : 'long';
      return [locale, new Intl.DisplayNames(locale, { type: 'region', style }).of(code)!];
    }),
  ) as Record<Locale, string>;
}

/** Region labels are ours, hand-translated (Intl has no 'Middle East & North Africa'). */
const REGION_NAMES: Record<string, Record<Locale, string>> = JSON.parse(
  readFileSync(new URL('../src/catalogue/region-names.json', import.meta.url), 'utf8'),
);

function aliases(code: string, englishName: string): string[] {
  const iso = isoEnglish.countries[code];
  const list = Array.isArray(iso) ? iso : iso ? [iso] : [];
  return [...new Set(list)].filter((a) => a.toLowerCase() !== englishName.toLowerCase() && a.toUpperCase() !== code);
}

// Plans: every country gets the core ladder; large markets get more, tiny ones fewer.
type Plan = [gigabytes: number, days: number];
const CORE: Plan[] = [[1, 7], [3, 15], [5, 30], [10, 30], [20, 30]];
const LARGE_EXTRA: Plan[] = [[50, 30]];
const SMALL: Plan[] = [[1, 7], [3, 15], [5, 30]];
const REGION_PLANS: Plan[] = [[1, 7], [3, 15], [5, 30], [10, 30], [20, 30]];
const GLOBAL_PLANS: Plan[] = [[1, 7], [3, 30], [5, 30], [10, 30]];

function plansFor(code: string): Plan[] {
  const population = Number(territoryInfo[code]?._population ?? 0);
  if (population >= 20_000_000) return [...CORE, ...LARGE_EXTRA];
  if (population < 1_000_000) return SMALL;
  return CORE;
}

function packagesFor(destination: string, plans: Plan[], supportedCountries: string[]) {
  return plans.map(([gigabytes, days]): Package & { destination: string } => ({
    id: `${destination.toLowerCase()}-${gigabytes}gb-${days}d`,
    destination,
    metadata: { dataAmount: { value: gigabytes, unit: 'GB' } },
    validity: days,
    validityUnit: 'day',
    supportedCountries,
  }));
}

const flagsDir = new URL('../public/flags/', import.meta.url);
mkdirSync(flagsDir, { recursive: true });
for (const code of countryCodes) {
  const source = join(FLAGS_SOURCE, `${code}.svg`);
  if (!existsSync(source)) throw new Error(`country-flag-icons has no flag for ${code}`);
  copyFileSync(source, new URL(`${code}.svg`, flagsDir));
}
copyFileSync(join(FLAGS_SOURCE, 'EU.svg'), new URL('region-europe.svg', flagsDir));
// One globe for the other regions: a flag would claim a political union that does not exist.
writeFileSync(
  new URL('region.svg', flagsDir),
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 20"><rect width="30" height="20" fill="#6d28d9"/><g fill="none" stroke="#fff" stroke-width="1.2"><circle cx="15" cy="10" r="7"/><path d="M8 10h14M15 3c-4 4-4 10 0 14M15 3c4 4 4 10 0 14"/></g></svg>\n',
);

const snapshot = {
  sources: {
    'cldr-core': version('cldr-core'),
    'country-flag-icons': version('country-flag-icons'),
    'i18n-iso-countries': version('i18n-iso-countries'),
    icu: process.versions.icu ?? 'unknown',
  },
  countries: countryCodes.map((code) => {
    const countryNames = names(code);
    return { code, names: countryNames, flag: `/flags/${code}.svg`, aliases: aliases(code, countryNames.en) };
  }),
  regions: Object.entries(REGIONS).map(([code, members]) => ({
    code,
    names: REGION_NAMES[code]!,
    flag: code === 'europe' ? '/flags/region-europe.svg' : '/flags/region.svg',
    supportedCountries: members,
  })),
  packages: [
    ...countryCodes.flatMap((code) => packagesFor(code, plansFor(code), [code])),
    ...Object.entries(REGIONS).map(([code, members]) => packagesFor(code, code === 'global' ? GLOBAL_PLANS : REGION_PLANS, members)).flat(),
  ],
};

// The same invariants the build enforces, flag files included (written above).
const root = fileURLToPath(new URL('..', import.meta.url));
const valid = parseSnapshot(snapshot, 'generated by scripts/generate-catalogue.ts', root);
writeFileSync(join(root, SNAPSHOT_FILE), JSON.stringify(valid) + '\n');
console.log(
  `Catalogue snapshot: ${snapshot.countries.length} countries, ${snapshot.regions.length} regions, ${snapshot.packages.length} packages.`,
);
