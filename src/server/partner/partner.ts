import type { DataAmount, Package } from '../../catalogue/schema.ts';

/**
 * What the shop needs from a wholesale eSIM partner (DESIGN 6), whoever the partner is.
 * Listing packages is all the catalogue needs; ordering, querying profiles, top-up, cancel and
 * usage join this interface with the delivery issue.
 */
export interface EsimPartner {
  /** Short name for messages and logs ('eSIM Access'). */
  readonly name: string;
  /** The partner's fixed-data packages (every location when `query` is empty). */
  listPackages(query?: PackageQuery): Promise<PartnerPackage[]>;
}

export interface PackageQuery {
  /** A country ('DE') or one of the partner's own location codes ('EU-42'). */
  location?: string;
  /** One package by the partner's code. */
  packageCode?: string;
}

/** A partner's package in our terms. */
export interface PartnerPackage {
  /** The partner's code for the package: what an order names. */
  partnerCode: string;
  /** The partner's readable id ('EU-42_5_30'). */
  slug: string;
  /** The partner's English name ('Europe 5GB 30Days'), for operators; never shown to buyers. */
  name: string;
  /** ISO 3166-1 alpha-2 codes of the countries it works in, sorted. */
  countries: string[];
  dataAmount: DataAmount;
  /** The data volume exactly as the partner counts it. */
  dataBytes: number;
  validity: number;
  validityUnit: Package['validityUnit'];
  /** The wholesale price in US dollars × 10,000 (the partner's unit: 10000 = USD 1.00). */
  wholesaleUsdE4: number;
}

/** A failed partner call: names the partner and the call, and says whether trying again may help. */
export class PartnerError extends Error {
  readonly partner: string;
  /** The partner's name for the call ('package/list'). */
  readonly call: string;
  /** The partner's error code ('101003'), or 'HTTP 503', or undefined for a network failure. */
  readonly code: string | undefined;
  readonly retryable: boolean;
  /** How many requests were made before giving up. */
  readonly attempts: number;

  constructor(
    details: {
      partner: string;
      call: string;
      code?: string | undefined;
      retryable: boolean;
      attempts: number;
      reason: string;
    },
    options?: ErrorOptions,
  ) {
    super(
      `${details.partner} ${details.call} failed${details.attempts > 1 ? ` after ${details.attempts} attempts` : ''}: ${details.reason}`,
      options,
    );
    this.name = 'PartnerError';
    this.partner = details.partner;
    this.call = details.call;
    this.code = details.code;
    this.retryable = details.retryable;
    this.attempts = details.attempts;
  }
}
