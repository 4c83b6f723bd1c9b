import { PartnerError } from '../partner.ts';
import type { EsimProfile, EsimUsage, PartnerPackage, PartnerReadOptions, ProfileAnswer, ProfileQuery } from '../partner.types.ts';
import { NotFound } from '../partner-http.ts';
import { esimDetailsRequest, type CallOptions, type EsimGoCall } from './client.ts';
import { PARTNER } from './config.ts';
import { parseEsimKey, type EsimGoKey } from './esim-key.ts';
import { profileOf, totalsOf } from './esim-state.ts';
import { label } from './label.ts';
import { mapEsimGoBundle } from './packages.ts';
import {
  AssignmentsAnswer,
  assignmentsOf,
  BundlesAnswer,
  EsimDetailsAnswer,
  RawBundle,
  type Assignment,
  type CatalogueBundle,
  type EsimGoDetails,
  type InstallDetails,
} from './schemas.ts';

/**
 * Reading eSIMs at eSIM Go: an eSIM is its details (Get eSIM details) and its bundle assignments
 * (List Bundles applied to eSIM, with includeUsed so depleted and expired ones count: guides/bundle_status);
 * an order's eSIMs are those of its install details (Get eSIM Install Details by its reference).
 */

/** A bundle's days from its documented moniker ('esim_1GB_7D_GB_V2', 'esim_50GB_90D_RGBS_V2': Get Bundle Groups). */
export function daysFromName(bundle: string): number | undefined {
  const match = /_(\d+)D(?:_|$)/i.exec(bundle);
  return match ? Number(match[1]) : undefined;
}

export function createEsimReader(call: EsimGoCall) {
  /** Bundles read from the catalogue (they do not change): a bundle's days when its name does not say, a new eSIM's totals. */
  const bundles = new Map<string, CatalogueBundle>();

  async function bundleNamed(name: string, options: CallOptions): Promise<CatalogueBundle> {
    const known = bundles.get(name);
    if (known) return known;
    const request = { method: 'GET', call: 'GET /catalogue/bundle/{name}', path: `/catalogue/bundle/${encodeURIComponent(name)}` } as const;
    const bundle = await call(request, (json) => RawBundle.parse(json), options);
    bundles.set(name, bundle);
    return bundle;
  }

  /** Each assignment's days: from its bundle's name, else Get Bundle details from catalogue (once per bundle). */
  async function daysOf(assignments: readonly Assignment[], options: CallOptions): Promise<(bundle: string) => number> {
    for (const bundle of new Set(assignments.map((a) => a.bundle))) {
      if (daysFromName(bundle) === undefined) await bundleNamed(bundle, options);
    }
    return (bundle) => daysFromName(bundle) ?? bundles.get(bundle)?.duration ?? 0;
  }

  async function bundlesOf(iccid: string, options: CallOptions): Promise<Assignment[]> {
    const request = {
      method: 'GET',
      call: 'GET /esims/{iccid}/bundles',
      path: `/esims/${encodeURIComponent(iccid)}/bundles`,
      query: { includeUsed: 'true', limit: '200' },
    } as const;
    return call(request, (json) => assignmentsOf(BundlesAnswer.parse(json)), options);
  }

  /**
   * The eSIM's details, only if it is still the one the key names (its customerRef: esim-key.ts).
   * One sold but not labelled yet (label.ts: the label after its delivery was lost) is labelled now.
   */
  async function detailsOf(key: EsimGoKey, options: CallOptions): Promise<EsimGoDetails> {
    const details = await call(
      esimDetailsRequest(key.iccid),
      (json) => {
        const answer = EsimDetailsAnswer.parse(json);
        const customerRef = answer.customerRef?.trim() ?? '';
        if (customerRef !== key.customerRef && customerRef !== '')
          throw new NotFound(`eSIM ${key.iccid} is no longer ${key.customerRef || 'unlabelled'}`);
        return answer;
      },
      options,
    );
    if ((details.customerRef?.trim() ?? '') === key.customerRef) return details;
    await label(call, key.iccid, key.customerRef, options);
    return { ...details, customerRef: key.customerRef };
  }

  /** The eSIM as the shop keeps it, from its details and its bundles read now. */
  async function profileFrom(details: EsimGoDetails, options: CallOptions): Promise<EsimProfile> {
    const assignments = await bundlesOf(details.iccid, options);
    return profileOf(details, assignments, await daysOf(assignments, options));
  }

  /** The eSIM its key names, read now. */
  async function profile(key: EsimGoKey, options: CallOptions): Promise<EsimProfile> {
    return profileFrom(await detailsOf(key, options), options);
  }

  /**
   * An order's eSIMs by its reference, or one eSIM by its key. 'allocating' while the install
   * details are not there yet: eSIM Go answers 503 'Processing - Please come back later' meanwhile
   * (its orders of more than 5 bundles are processed asynchronously: release notes 2.2.0).
   *
   * The delivery's read (`ordered` said: the transaction's answer named no install details, or it
   * was lost with its instance) is the install details alone, one request: an eSIM just bought is
   * what eSIM Go holds for it then (justBought). Any other read of an order's eSIMs reads each eSIM
   * (details and bundles).
   */
  async function queryProfiles(which: ProfileQuery, options: PartnerReadOptions = {}): Promise<ProfileAnswer> {
    if ('esimTranNo' in which) {
      const key = parseEsimKey(which.esimTranNo) ?? notFound(which.esimTranNo);
      return { status: 'ready', profiles: [await profile(key, { priority: options.priority ?? 'refund', signal: options.signal })] };
    }
    const read = { priority: options.priority ?? 'delivery', signal: options.signal };
    const request = {
      method: 'GET',
      call: 'GET /esims/assignments',
      path: '/esims/assignments',
      query: { reference: which.partnerOrderNo },
    } as const;
    let esims;
    try {
      esims = await call(request, (json) => AssignmentsAnswer.parse(json), { ...read, retries: 0 });
    } catch (error) {
      if (error instanceof PartnerError && error.code === 'HTTP 503') return { status: 'allocating' };
      throw error;
    }
    if (!installable(esims)) return { status: 'allocating' };
    if (which.ordered) {
      const { transactionId, partnerCode } = which.ordered;
      const bundle = mapEsimGoBundle(await bundleNamed(partnerCode, read));
      return { status: 'ready', profiles: esims.map((esim) => justBought(esim, transactionId, bundle)) };
    }
    const profiles: EsimProfile[] = [];
    for (const { iccid } of esims)
      profiles.push(await profileFrom(await call(esimDetailsRequest(iccid), (json) => EsimDetailsAnswer.parse(json), read), read));
    return { status: 'ready', profiles };
  }

  /**
   * Data use per eSIM (its bundles' quantities). eSIM Go says no measuring time: the answer is its
   * count as of the read, so measuredAt is the read's time once a bundle started, null before.
   * The key's customerRef is not checked here (a second read per eSIM): an ICCID only comes back
   * after it left the account unused, and the shop reads no usage of those.
   */
  async function usage(keys: readonly string[], options: PartnerReadOptions = {}): Promise<EsimUsage[]> {
    const usages: EsimUsage[] = [];
    for (const esimTranNo of keys) {
      const key = parseEsimKey(esimTranNo);
      if (!key) continue;
      const assignments = await bundlesOf(key.iccid, { priority: options.priority ?? 'usage', signal: options.signal });
      const { usedBytes, totalBytes } = totalsOf(assignments, () => 0);
      const started = assignments.some((a) => a.startTime || ['active', 'depleted', 'expired'].includes(a.bundleState));
      usages.push({ esimTranNo, usedBytes, totalBytes, measuredAt: started ? new Date() : null });
    }
    return usages;
  }

  return { queryProfiles, usage, profile, detailsOf, bundlesOf, daysOf, bundleNamed };
}

/** Whether an order's eSIMs are all there to install (each its SM-DP+ address and matching id). */
export function installable(esims: readonly InstallDetails[]): boolean {
  return esims.length > 0 && esims.every((e) => e.matchingId && e.smdpAddress);
}

/**
 * An eSIM as eSIM Go holds it right after the order that bought it (Create orders, assign: true),
 * keyed by our order (esim-key.ts; labelled once the shop stored it, label.ts): no profile
 * downloaded, its one bundle queued and unused.
 */
export function justBought(esim: InstallDetails, transactionId: string, bundle: PartnerPackage): EsimProfile {
  const details = { ...esim, customerRef: transactionId, profileStatus: null, firstInstalledDateTime: null, state: null };
  const assignment: Assignment = {
    id: '',
    bundle: bundle.partnerCode,
    initialQuantity: bundle.dataBytes,
    remainingQuantity: bundle.dataBytes,
    assignmentDateTime: new Date(),
    assignmentReference: null,
    bundleState: 'queued',
    unlimited: null,
    startTime: null,
    endTime: null,
  };
  return profileOf(details, [assignment], () => bundle.validity);
}

export type EsimReader = ReturnType<typeof createEsimReader>;

function notFound(esimTranNo: string): never {
  throw new PartnerError({
    partner: PARTNER,
    call: 'GET /esims/{iccid}',
    kind: 'not_found',
    retryable: false,
    attempts: 0,
    reason: `${esimTranNo} is not an eSIM Go key`,
  });
}
