import { z } from 'zod';

// eSIM Go's answers as zod schemas (API v2.5, docs.esim-go.com; field names from the v2.4 OpenAPI
// schema, esim_go_schema_v2_4.yaml, which v2.5 extends without breaking changes: guides/api_version_migration).
// Loose objects: eSIM Go adds fields within a version (v2.5 added `state`, install URLs).

/** A number or a numeric string ('1000'), as eSIM Go's examples show both. */
const numeric = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .transform(Number),
]);

const Country = z.looseObject({ name: z.string().nullish(), region: z.string().nullish(), iso: z.string().nullish() });

/**
 * Get Bundle catalogue / Get Bundle details from catalogue (CatalogueResponse, BundleCatalogueResponse):
 * dataAmount in MB, duration in days, price in the organisation's currency. `allowances` is
 * Get bundle inventory's field (DATA, SMS, VOICE), read when the catalogue gives it too.
 */
export const RawBundle = z.looseObject({
  name: z.string().min(1),
  description: z.string().nullish(),
  groups: z.array(z.string()).nullish(),
  countries: z.array(Country).default([]),
  dataAmount: numeric.nullish(),
  duration: numeric,
  speed: z.array(z.string()).nullish(),
  autostart: z.boolean().nullish(),
  unlimited: z.boolean().nullish(),
  roamingEnabled: z.array(Country).nullish(),
  price: numeric,
  billingType: z.string().nullish(),
  allowances: z.array(z.looseObject({ type: z.string().nullish(), amount: numeric.nullish() })).nullish(),
});
export type EsimGoBundle = z.input<typeof RawBundle>;
/** A catalogue bundle as read (Get Bundle details from catalogue). */
export type CatalogueBundle = z.output<typeof RawBundle>;
/** The docs' schema is a bare array; integrations read `{ bundles, pageCount, rows }`: both are read. */
export const CatalogueAnswer = z.union([
  z.array(RawBundle).transform((bundles) => ({ bundles, pageCount: 1 })),
  z.looseObject({ bundles: z.array(RawBundle).default([]), pageCount: numeric.nullish() }).transform((a) => ({
    bundles: a.bundles,
    pageCount: a.pageCount ?? 1,
  })),
]);

/** Get Country Network Data (NetworkResponse): `name` is the country's ISO code (its description says so). */
export const NetworksAnswer = z.looseObject({
  countryNetworks: z
    .array(
      z.looseObject({
        name: z.string().nullish(),
        iso: z.string().nullish(),
        networks: z
          .array(z.looseObject({ name: z.string().nullish(), brandName: z.string().nullish(), speed: z.array(z.string()).nullish() }))
          .default([]),
      }),
    )
    .default([]),
});
export type EsimGoNetworks = z.output<typeof NetworksAnswer>;

/** Get Current Organisation Details (OrganisationResponse): balance in `currency` (typed integer in the docs, read as a number). */
export const OrganisationAnswer = z.looseObject({ balance: numeric, currency: z.string().min(1) });

/** An eSIM's install details (InstallDetails): in Get eSIM Install Details, and in a transaction's answer (OrderLine.esims). */
const InstallDetails = z.looseObject({ iccid: z.string().min(1), matchingId: z.string().nullish(), smdpAddress: z.string().nullish() });
const OrderLine = z.looseObject({
  type: z.string().nullish(),
  item: z.string().nullish(),
  quantity: numeric.nullish(),
  subTotal: numeric.nullish(),
  pricePerUnit: numeric.nullish(),
  iccids: z.array(z.string()).nullish(),
  esims: z.array(InstallDetails).nullish(),
});
/** Create orders, type validate (OrderResponseValidate). */
export const ValidateAnswer = z.looseObject({
  order: z.array(OrderLine).default([]),
  total: numeric,
  valid: z.boolean().nullish(),
  currency: z.string(),
});
/** Create orders, type transaction, and Get order detail (OrderResponseTransaction). */
export const OrderAnswer = z.looseObject({
  order: z.array(OrderLine).default([]),
  total: numeric.nullish(),
  currency: z.string().nullish(),
  status: z.string().nullish(),
  statusMessage: z.string().nullish(),
  orderReference: z.string().min(1),
  createdDate: z.string().nullish(),
  assigned: z.boolean().nullish(),
});
export type EsimGoOrder = z.output<typeof OrderAnswer>;
/** List orders: the docs' schema names the transaction's; a page of them is read bare or as `{ orders }`. */
export const OrderListAnswer = z.union([
  z.array(OrderAnswer),
  z.looseObject({ orders: z.array(OrderAnswer).nullish() }).transform((a) => a.orders ?? []),
]);

/** The ICCIDs an order's lines carry (`iccids`, or `esims[].iccid` where that is all it gives). */
export function iccidsOf(order: EsimGoOrder): string[] {
  return [...new Set(order.order.flatMap((line) => [...(line.iccids ?? []), ...(line.esims ?? []).map((e) => e.iccid)]))];
}

/** List eSIMs (ESIMs): each eSIM with its customerRef and first assignment date. */
export const EsimListAnswer = z.looseObject({
  esims: z
    .array(z.looseObject({ iccid: z.string().min(1), customerRef: z.string().nullish(), assignedDate: z.string().nullish() }))
    .nullish()
    .transform((list) => list ?? []),
});

/** When the profile was first installed: milliseconds (Get eSIM details) or an ISO time (Get eSIM Install Details). */
const firstInstalled = z
  .union([z.number(), z.string()])
  .nullish()
  .transform((value) => {
    if (value === null || value === undefined || value === '' || value === 0) return null;
    const date = new Date(typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
    return Number.isNaN(date.getTime()) ? null : date;
  });

/**
 * Get eSIM details (eSIMDetailsResponse): its SM-DP+ address and matching id, profileStatus
 * (Released, Downloaded, Installed, Unavailable, Deactivated: v2.5 Get eSIM details), customerRef,
 * and since v2.5 `state` (Active, Suspended, Deactivated: guides/api_version_migration).
 */
export const EsimDetailsAnswer = z.looseObject({
  iccid: z.string().min(1),
  matchingId: z.string().nullish(),
  smdpAddress: z.string().nullish(),
  profileStatus: z.string().nullish(),
  firstInstalledDateTime: firstInstalled,
  customerRef: z.string().nullish(),
  state: z.string().nullish(),
});
export type EsimGoDetails = z.output<typeof EsimDetailsAnswer>;

/** Get eSIM Install Details with Accept: application/json: the docs' example is one object; several eSIMs are read as an array. */
export const AssignmentsAnswer = z.union([z.array(InstallDetails), InstallDetails.transform((one) => [one])]);
export type InstallDetails = z.output<typeof InstallDetails>;

const time = z
  .string()
  .nullish()
  .transform((text) => {
    const date = text ? new Date(text) : null;
    return date && !Number.isNaN(date.getTime()) ? date : null;
  });

/**
 * An assignment of a bundle to an eSIM (List Bundles applied to eSIM, Get applied Bundle status):
 * bytes, its state (guides/bundle_status: processing, queued, active, depleted, expired, revoked,
 * lapsed; the reference shows them capitalised, the guide lower-case: read either), and the start
 * and end of its validity once it started (v2.3 List Bundles: 'will not be displayed in response if
 * bundle has not been started'; the callbacks name them startTime and endTime, read so here).
 */
const RawAssignment = z.looseObject({
  id: z.union([z.string(), z.number()]).transform(String),
  initialQuantity: numeric.default(0),
  remainingQuantity: numeric.default(0),
  assignmentDateTime: time,
  assignmentReference: z.string().nullish(),
  bundleState: z.string().transform((s) => s.toLowerCase()),
  unlimited: z.boolean().nullish(),
  startTime: time,
  endTime: time,
});
export const BundlesAnswer = z.looseObject({
  bundles: z
    .array(z.looseObject({ name: z.string().min(1), description: z.string().nullish(), assignments: z.array(RawAssignment).default([]) }))
    .nullish()
    .transform((list) => list ?? []),
});

/** One assignment with its bundle's name: what an eSIM's state and totals are made of. */
export type Assignment = z.output<typeof RawAssignment> & { bundle: string };

export function assignmentsOf(answer: z.output<typeof BundlesAnswer>): Assignment[] {
  return answer.bundles
    .flatMap((b) => b.assignments.map((a) => ({ ...a, bundle: b.name })))
    .sort((a, b) => (a.assignmentDateTime?.getTime() ?? 0) - (b.assignmentDateTime?.getTime() ?? 0));
}

/** Check eSIM and Bundle Compatibility (CompatibilityResponse). */
export const CompatibilityAnswer = z.looseObject({ compatible: z.boolean() });
/** The answer of calls that return no data (StatusMessage). */
export const StatusAnswer = z.looseObject({ status: z.string().nullish() }).nullish();
