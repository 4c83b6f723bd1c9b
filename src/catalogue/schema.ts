import { z } from 'zod';
import { BASE_CURRENCY, CURRENCIES, type Currency } from '../config/currencies.ts';
import { LOCALE_CODES } from '../i18n/locales.ts';
import { ExchangeRates } from '../pricing/exchange-rates.ts';

/**
 * The one schema of the catalogue contract (spec 3 and 7), used by the API, the snapshot
 * generator, the build-time loader and the tests.
 */

/** ISO 3166-1 alpha-2 country code in capitals ('DE'), or XK for Kosovo. */
export const CountryCode = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter country code in capitals');
/** A region code: lower-case words joined by hyphens ('europe', 'north-america'). */
export const RegionCode = z
  .string()
  .max(40, 'must be at most 40 characters')
  .regex(/^[a-z]{3,}(-[a-z]+)*$/, 'must be a lower-case region slug of three letters or more');

const Name = z.string().trim().min(1, 'must not be empty');
const FlagPath = z.string().regex(/^\/flags\/[\w-]+\.svg$/, 'must be a path under /flags/ ending in .svg');

export const Country = z.object({
  code: CountryCode,
  name: Name,
  flag: FlagPath,
  /** Other names people search for ('USA', 'UK', 'Czech Republic'), in English. */
  aliases: z.array(Name).default([]),
});

export const Region = z.object({
  code: RegionCode,
  name: Name,
  flag: FlagPath,
  supportedCountries: z.array(CountryCode).min(1, 'must list at least one country'),
});

export const DataAmount = z.object({
  value: z.number().positive(),
  unit: z.enum(['MB', 'GB']),
});

export const Price = z.object({
  /** Minor units (cents) to avoid floating-point money. */
  amountMinor: z.number().int().nonnegative(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code'),
});

/** A plan's price in every listed currency (issue 34), minor units by currency: each currency's own price list. */
export const Prices = z.object(
  Object.fromEntries(CURRENCIES.map((c) => [c, z.number().int().positive()])) as Record<Currency, z.ZodNumber>,
);
export type Prices = z.infer<typeof Prices>;

/** A network generation, as the partner names it ('4G'); the best one an operator offers there. */
export const NetworkType = z.enum(['2G', '3G', '4G', '5G'], { error: "must be one of '2G', '3G', '4G', '5G'" });

/** A speed a plan falls back to after its (daily) volume, in kbit/s. */
const Slowed = z.object({ slowedToKbps: z.number().int().positive('must be a positive number of kbit/s') });

/** How the data is counted; metadata.dataAmount is the whole, the daily or the daily fair-use volume. */
export const DataKind = z.discriminatedUnion(
  'kind',
  [
    z.object({ kind: z.literal('total') }),
    /** eSIM Access dataType 2 (then slowed to fupPolicy) and 3 (then cut off). */
    z.object({ kind: z.literal('daily'), after: z.union([Slowed, z.literal('cut')], { error: "must be { slowedToKbps } or 'cut'" }) }),
    /** dataType 4: a daily fair-use volume, then slowed to fupPolicy. */
    z.object({ kind: z.literal('unlimited'), after: Slowed }),
  ],
  { error: "must be a data kind: 'total', 'daily' or 'unlimited'" },
);

/** The plan's facts, as the partner states them (issue 22): what the package page and cards show. */
export const PlanFacts = z.object({
  /** Per covered country (every one of supportedCountries), its operators and each one's best network type. */
  networks: z
    .array(
      z.object({
        country: CountryCode,
        operators: z.array(z.object({ name: Name, networkType: NetworkType })).min(1, 'must name at least one operator'),
      }),
    )
    .min(1, 'must list the networks of at least one country')
    .superRefine(unique('country')),
  data: DataKind,
  /** When validity starts: at install, or at the first connection in a covered country (activeType). */
  validityStarts: z.enum(['install', 'first-connection'], { error: "must be 'install' or 'first-connection'" }),
  /** Days within which the eSIM must be installed after purchase (unusedValidTime). */
  installWithinDays: z.number().int().positive('must be a positive number of days'),
  /** Whether the partner sells top-ups of it (supportTopUpType). */
  topUp: z.boolean(),
  /** Hotspot/tethering as the partner states it; null where it says nothing. */
  hotspot: z.boolean().nullable(),
  /** Whether the eSIM receives SMS (smsStatus). */
  sms: z.boolean(),
  /** The country the traffic leaves from (ipExport), or null. */
  trafficExit: CountryCode.nullable(),
});
export type PlanFacts = z.infer<typeof PlanFacts>;
export type DataKind = z.infer<typeof DataKind>;

const PackageObject = z.object({
  id: z.string().regex(/^[a-z0-9-]+$/, 'must be lower-case letters, digits and hyphens'),
  metadata: z.object({ dataAmount: DataAmount }),
  validity: z.number().int().positive(),
  validityUnit: z.enum(['day', 'week', 'month']),
  supportedCountries: z.array(CountryCode).min(1, 'must list at least one country'),
  /** Optional in the contract: without one, plan cards say 'Price will be updated soon' and it cannot be bought (DESIGN 2). */
  price: Price.optional(),
  /** With a price, the price in every listed currency (`price` is the euro one): what the currency picker switches between. */
  prices: Prices.optional(),
  facts: PlanFacts,
});
export const Package = PackageObject.superRefine(networksCoverCountries).superRefine(pricedInEveryCurrency);
/** A package's fields as the contract has them: all a buyer's page may ever get of it (never a partner's code or price). */
export const PUBLIC_PACKAGE_FIELDS = Object.keys(PackageObject.shape).sort();

/** A priced plan is priced in every currency, its `price` being the euro one: a page switches currency without asking. */
function pricedInEveryCurrency(pkg: { price?: Price | undefined; prices?: Prices | undefined }, ctx: z.RefinementCtx): void {
  if (pkg.price && !pkg.prices)
    ctx.addIssue({ code: 'custom', path: ['prices'], message: 'is missing: a priced plan lists its price in every currency' });
  else if (pkg.price && (pkg.price.currency !== BASE_CURRENCY || pkg.price.amountMinor !== pkg.prices?.[BASE_CURRENCY])) {
    ctx.addIssue({ code: 'custom', path: ['price'], message: `must be prices.${BASE_CURRENCY}` });
  }
}

/** A plan's networks name exactly its covered countries: a country without operators is a gap the page would hide. */
function networksCoverCountries(pkg: { supportedCountries: readonly string[]; facts: PlanFacts }, ctx: z.RefinementCtx): void {
  const listed = new Set(pkg.facts.networks.map((n) => n.country));
  const missing = pkg.supportedCountries.filter((c) => !listed.has(c));
  const extra = [...listed].filter((c) => !pkg.supportedCountries.includes(c));
  if (missing.length > 0)
    ctx.addIssue({ code: 'custom', path: ['facts', 'networks'], message: `lists no operators for ${missing.join(', ')}` });
  if (extra.length > 0)
    ctx.addIssue({ code: 'custom', path: ['facts', 'networks'], message: `lists countries the plan does not cover: ${extra.join(', ')}` });
}

/** Flags an item whose `key` repeats an earlier item's, at the repeat: 'countries[12].code: DE repeats [3]: codes must be unique'. */
function unique<K extends string>(key: K) {
  return (items: ReadonlyArray<Record<K, string>>, ctx: z.RefinementCtx) => {
    const first = new Map<string, number>();
    items.forEach((item, index) => {
      const earlier = first.get(item[key]);
      if (earlier === undefined) first.set(item[key], index);
      else ctx.addIssue({ code: 'custom', path: [index, key], message: `${item[key]} repeats [${earlier}]: ${key}s must be unique` });
    });
  };
}

export const CountryList = z.array(Country).superRefine(unique('code'));
export const RegionList = z.array(Region).superRefine(unique('code'));
export const PackageList = z.array(Package).superRefine(unique('id'));

export type Country = z.infer<typeof Country>;
export type Region = z.infer<typeof Region>;
export type Package = z.infer<typeof Package>;
export type DataAmount = z.infer<typeof DataAmount>;
export type Price = z.infer<typeof Price>;

const Names = z.object(Object.fromEntries(LOCALE_CODES.map((l) => [l, Name])) as Record<(typeof LOCALE_CODES)[number], typeof Name>);

/** The records the cross-record invariants read: a snapshot, or the build's assembled API answers. */
interface Records {
  countries: ReadonlyArray<{ code: string }>;
  regions: ReadonlyArray<{ code: string; supportedCountries: readonly string[] }>;
  packages: ReadonlyArray<{ id: string; destination: string; supportedCountries: readonly string[] }>;
}

/**
 * The invariants between records: regions and packages name existing countries, every package
 * has an existing destination, a country's package covers that country, and every destination
 * sells at least one package (the store never shows an empty destination).
 */
function crossRecordInvariants({ countries, regions, packages }: Records, ctx: z.RefinementCtx): void {
  const countryCodes = new Set(countries.map((c) => c.code));
  const regionCodes = new Set(regions.map((r) => r.code));
  const unknownCountries = (codes: readonly string[]) => codes.filter((code) => !countryCodes.has(code)).join(', ');
  regions.forEach((region, index) => {
    const unknown = unknownCountries(region.supportedCountries);
    if (unknown)
      ctx.addIssue({ code: 'custom', path: ['regions', index, 'supportedCountries'], message: `lists unknown countries ${unknown}` });
  });
  const sold = new Set<string>();
  packages.forEach((pkg, index) => {
    sold.add(pkg.destination);
    const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: ['packages', index, field], message });
    const unknown = unknownCountries(pkg.supportedCountries);
    if (unknown) issue('supportedCountries', `lists unknown countries ${unknown}`);
    if (!countryCodes.has(pkg.destination) && !regionCodes.has(pkg.destination)) {
      issue('destination', `${pkg.destination} is neither a country nor a region`);
    } else if (countryCodes.has(pkg.destination) && !pkg.supportedCountries.includes(pkg.destination)) {
      issue('supportedCountries', `does not cover its destination ${pkg.destination}`);
    }
  });
  for (const [kind, list] of [
    ['countries', countries],
    ['regions', regions],
  ] as const) {
    list.forEach((record, index) => {
      if (!sold.has(record.code)) ctx.addIssue({ code: 'custom', path: [kind, index], message: `${record.code} has no packages` });
    });
  }
}

/**
 * One partner's package selling a plan (issue 48): which partner (a registry id), its code for the
 * package and its wholesale price, US dollars × 10,000. Internal: the API never answers it.
 */
export const PartnerOffer = z.object({
  partner: z.string().min(1, 'must not be empty'),
  partnerCode: z.string().min(1, 'must not be empty'),
  wholesaleUsdE4: z.number().int().nonnegative(),
});
export type PartnerOffer = z.infer<typeof PartnerOffer>;

const SnapshotPackageObject = PackageObject.extend({
  destination: z.union([CountryCode, RegionCode]),
  /** The partner's code for the package the retail price is made from (the first offer's). Internal: the API never answers it. */
  partnerCode: z.string().min(1, 'must not be empty'),
  /** That package's price, US dollars × 10,000: what the one pricing function prices the plan from. Internal. */
  wholesaleUsdE4: z.number().int().nonnegative(),
  /** Every partner's package of this plan, one per partner, the one the price is made from first. Internal. */
  offers: z.array(PartnerOffer).min(1, 'needs at least one partner’s package'),
  /** Every package of the snapshot comes from the partner with a price in every currency, so it can be bought. */
  prices: Prices,
}).omit({ price: true });
const SnapshotPackage = SnapshotPackageObject.superRefine(networksCoverCountries);

/** The committed snapshot the API serves by default: names in all 12 languages. */
export const Snapshot = z
  .object({
    sources: z.record(z.string(), z.string()),
    countries: z
      .array(Country.omit({ name: true }).extend({ names: Names }))
      .min(1)
      .superRefine(unique('code')),
    regions: z
      .array(Region.omit({ name: true }).extend({ names: Names }))
      .min(1)
      .superRefine(unique('code')),
    packages: z.array(SnapshotPackage).min(1).superRefine(unique('id')),
    /** The ECB's rates the prices rest on, dated (issue 34). */
    exchangeRates: ExchangeRates,
  })
  .superRefine(crossRecordInvariants);
export type Snapshot = z.infer<typeof Snapshot>;

/**
 * The catalogue the build assembles from the API's answers (English lists, every destination's
 * packages tagged with it), held to the snapshot's invariants: the data is the same whichever
 * source served it.
 */
export const AssembledCatalogue = z
  .object({
    countries: z.array(Country.pick({ code: true, flag: true })).superRefine(unique('code')),
    regions: z.array(Region.pick({ code: true, flag: true, supportedCountries: true })).superRefine(unique('code')),
    packages: z.array(SnapshotPackageObject.pick({ id: true, destination: true, supportedCountries: true })).superRefine(unique('id')),
  })
  .superRefine(crossRecordInvariants);

/**
 * 'countries[3].names.de (code DE): must not be empty': names the record and the field.
 * `data` is what was parsed: the record is the innermost object on the path with a code or an id.
 */
export function describeIssues(error: z.ZodError, data?: unknown): string {
  return error.issues
    .slice(0, 10)
    .map((issue) => {
      let node = data;
      let record = '';
      for (const key of issue.path) {
        node = node !== null && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined;
        if (node !== null && typeof node === 'object') {
          const { code, id } = node as { code?: unknown; id?: unknown };
          if (typeof code === 'string') record = ` (code ${code})`;
          else if (typeof id === 'string') record = ` (id ${id})`;
        }
      }
      return `${formatPath(issue.path)}${record}: ${issue.message}`;
    })
    .join('\n');
}

function formatPath(path: readonly PropertyKey[]): string {
  return (
    path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '') ||
    '(root)'
  );
}
