import { z } from 'zod';
import { LOCALE_CODES } from '../i18n/locales.ts';

/**
 * The one schema of the catalogue contract (spec 3 and 7), used by the API, the snapshot
 * generator, the build-time loader and the tests.
 */

/** ISO 3166-1 alpha-2 country code in capitals ('DE'), or XK for Kosovo. */
export const CountryCode = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter country code in capitals');
/** A region code: lower-case words joined by hyphens ('europe', 'north-america'). */
export const RegionCode = z
  .string()
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

export const Package = z.object({
  id: z.string().regex(/^[a-z0-9-]+$/, 'must be lower-case letters, digits and hyphens'),
  metadata: z.object({ dataAmount: DataAmount }),
  validity: z.number().int().positive(),
  validityUnit: z.enum(['day', 'week', 'month']),
  supportedCountries: z.array(CountryCode).min(1, 'must list at least one country'),
  /** Absent today: plan cards then say 'Price will be updated soon' (DESIGN 2). */
  price: Price.optional(),
});

export const CountryList = z.array(Country);
export const RegionList = z.array(Region);
export const PackageList = z.array(Package);

export type Country = z.infer<typeof Country>;
export type Region = z.infer<typeof Region>;
export type Package = z.infer<typeof Package>;
export type DataAmount = z.infer<typeof DataAmount>;
export type Price = z.infer<typeof Price>;

const Names = z.object(Object.fromEntries(LOCALE_CODES.map((l) => [l, Name])) as Record<(typeof LOCALE_CODES)[number], typeof Name>);

/** The committed snapshot the API serves by default: names in all 12 languages. */
export const Snapshot = z.object({
  sources: z.record(z.string(), z.string()),
  countries: z.array(Country.omit({ name: true }).extend({ names: Names })).min(1),
  regions: z.array(Region.omit({ name: true }).extend({ names: Names })).min(1),
  packages: z.array(Package.extend({ destination: z.union([CountryCode, RegionCode]) })).min(1),
});
export type Snapshot = z.infer<typeof Snapshot>;

/** 'countries[3].names.de: must not be empty' — names the record and the field. */
export function describeIssues(error: z.ZodError, records?: readonly unknown[]): string {
  return error.issues
    .slice(0, 10)
    .map((issue) => {
      const [index] = issue.path;
      const record = typeof index === 'number' ? records?.[index] : undefined;
      const code = record && typeof record === 'object' && 'code' in record ? ` (code ${String(record.code)})` : '';
      const id = record && typeof record === 'object' && 'id' in record ? ` (id ${String(record.id)})` : '';
      return `${formatPath(issue.path)}${code}${id}: ${issue.message}`;
    })
    .join('\n');
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '') || '(root)';
}
