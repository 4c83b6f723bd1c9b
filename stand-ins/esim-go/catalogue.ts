import { REGIONS } from '../../scripts/lib/geography.ts';

/**
 * The stand-in's catalogue, in eSIM Go's shape (Get Bundle catalogue, BundleCatalogueResponse;
 * names as its documented monikers: esim_1GB_7D_DE_V2) and its network data (Get Country Network
 * Data). Small on purpose, and the same plan shapes as the eSIM Access stand-in sells in Germany
 * and Europe (1 GB for 7 days, 3 GB for 15 days, 5 and 10 GB for 30 days), so both partners offer
 * the same plans. Prices are made up, in US dollars (the organisation's currency).
 */

export interface StandInCountry {
  name: string;
  region: string;
  iso: string;
}

/** A bundle as Get Bundle catalogue lists it; `provider` is the stand-in's own, never served. */
export interface StandInBundle {
  name: string;
  description: string;
  groups: string[];
  countries: StandInCountry[];
  /** MB (decimal: 1000 a GB); -1 for unlimited bundles (our guess: the docs do not say). */
  dataAmount: number;
  /** Days. */
  duration: number;
  speed: string[];
  autostart: boolean;
  unlimited: boolean;
  roamingEnabled: StandInCountry[];
  /** USD, the organisation's currency. */
  price: number;
  billingType: 'FixedCost';
  /**
   * The network provider behind it: eSIM Go 'utilizes multiple providers ... certain bundles may be
   * incompatible with existing eSIMs if they originate from different providers' (Check eSIM and
   * Bundle Compatibility). Europe's bundles are one provider's, the United States' another's.
   */
  provider: 'europe' | 'americas';
}

/** Operators, MCC-MNC and best speed where the stand-in sells (public knowledge); elsewhere a made-up incumbent. */
type Network = [brandName: string, mccMnc: string, speed: '3G' | '4G' | '5G'];
const NETWORKS: Record<string, Network[]> = {
  DE: [
    ['Telekom', '26201', '5G'],
    ['Vodafone', '26202', '5G'],
    ['O2', '26203', '4G'],
  ],
  FR: [
    ['Orange', '20801', '5G'],
    ['SFR', '20810', '5G'],
    ['Bouygues Telecom', '20820', '4G'],
  ],
  IT: [
    ['TIM', '22201', '5G'],
    ['Vodafone', '22210', '5G'],
    ['WindTre', '22288', '4G'],
  ],
  ES: [
    ['Movistar', '21407', '5G'],
    ['Vodafone', '21401', '5G'],
    ['Orange', '21403', '4G'],
  ],
  NL: [
    ['KPN', '20408', '5G'],
    ['Vodafone', '20404', '5G'],
    ['Odido', '20416', '4G'],
  ],
  AT: [
    ['A1', '23201', '5G'],
    ['Magenta', '23203', '5G'],
    ['Drei', '23205', '4G'],
  ],
  US: [
    ['AT&T', '310410', '5G'],
    ['T-Mobile', '310260', '5G'],
    ['Verizon', '311480', '4G'],
  ],
};

const englishName = new Intl.DisplayNames('en', { type: 'region' });
const countryOf = (iso: string, region: string): StandInCountry => ({ name: englishName.of(iso) ?? iso, region, iso });

/** Get Country Network Data's entry of a country: `name` is its ISO code (as the docs describe it). */
export function networksOf(iso: string) {
  const known = NETWORKS[iso] ?? [[`${englishName.of(iso) ?? iso} Telecom`, '00000', '4G'] as Network];
  return {
    name: iso,
    networks: known.map(([brandName, mccMnc, speed]) => ({
      name: brandName,
      brandName,
      mcc: mccMnc.slice(0, 3),
      mnc: mccMnc.slice(3),
      tagid: `${iso}${brandName
        .replace(/[^A-Za-z]/g, '')
        .slice(0, 3)
        .toUpperCase()}`,
      speed: speed === '5G' ? ['3G', '4G', '5G'] : speed === '4G' ? ['3G', '4G'] : ['3G'],
    })),
  };
}

type Plan = [gigabytes: number, days: number];
const LADDER: Plan[] = [
  [1, 7],
  [3, 15],
  [5, 30],
];
const GERMANY: Plan[] = [...LADDER, [3, 30], [10, 30]];
const EUROPE: Plan[] = [...LADDER, [10, 30]];
/** USD per GB where data is cheapest; dearer for the region and the United States. */
const USD_PER_GB: Record<string, number> = { DE: 1.1, FR: 1.05, IT: 1.0, ES: 1.0, NL: 1.15, AT: 1.1, EU: 1.45, US: 1.9 };

/** Sub-linear in data and days, rounded to the cent: a made-up but plausible wholesale price. */
function priceOf(code: string, gigabytes: number, days: number): number {
  return Math.round((USD_PER_GB[code] ?? 1.2) * gigabytes ** 0.85 * (days / 7) ** 0.2 * 100) / 100;
}

function fixed(
  code: string,
  place: string,
  countries: StandInCountry[],
  [gigabytes, days]: Plan,
  provider: StandInBundle['provider'],
): StandInBundle {
  return {
    name: `esim_${gigabytes}GB_${days}D_${code}_V2`,
    description: `eSIM, ${gigabytes}GB, ${days} Days, ${place}, V2`,
    groups: ['Standard Fixed'],
    countries,
    dataAmount: gigabytes * 1000,
    duration: days,
    speed: ['4G', '5G'],
    autostart: true,
    unlimited: false,
    roamingEnabled: [],
    price: priceOf(code, gigabytes, days),
    billingType: 'FixedCost',
    provider,
  };
}

/** The stand-in's bundles: six European countries, Europe as a region, Germany's unlimited lite, the United States. */
export function buildEsimGoCatalogue(): StandInBundle[] {
  const single = (iso: string, plans: Plan[], region: string, provider: StandInBundle['provider']) =>
    plans.map((plan) => fixed(iso, englishName.of(iso) ?? iso, [countryOf(iso, region)], plan, provider));
  const europe = REGIONS['europe']!.map((iso) => countryOf(iso, 'Europe'));
  return [
    ...single('DE', GERMANY, 'Europe', 'europe'),
    ...['FR', 'IT', 'ES', 'NL', 'AT'].flatMap((iso) => single(iso, LADDER, 'Europe', 'europe')),
    ...EUROPE.map((plan) => fixed('EU', 'Europe', europe, plan, 'europe')),
    // Get Bundle Groups: 'Unlimited Lite ... 1GB of unthrottled data every 24 hours ... then 512kbps' (esim_UL_1D_TR_V2).
    {
      ...fixed('DE', 'Germany', [countryOf('DE', 'Europe')], [1, 7], 'europe'),
      name: 'esim_UL_7D_DE_V2',
      description: 'eSIM, Unlimited Lite, 7 Days, Germany, V2',
      groups: ['Standard Unlimited Lite'],
      dataAmount: -1,
      unlimited: true,
      price: 6.5,
    },
    ...single('US', LADDER, 'North America', 'americas'),
  ];
}
