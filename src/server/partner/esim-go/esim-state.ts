import type { InstallStep } from '../../../contract/shop-api.ts';
import type { EsimProfile, EsimStatus, TopUpResult } from '../partner.types.ts';
import { PARTNER } from './config.ts';
import { esimKey } from './esim-key.ts';
import { INSTALL_WITHIN_DAYS } from './packages.ts';
import type { Assignment, EsimGoDetails } from './schemas.ts';

// An eSIM's state in our terms, from Get eSIM details (profileStatus, state, firstInstalledDateTime)
// and its bundle assignments (List Bundles applied to eSIM: bundleState, quantities, times).

const DAY_MS = 86_400_000;
/** Assignment states (guides/bundle_status) whose bundle carried data: its validity started. */
const STARTED: ReadonlySet<string> = new Set(['active', 'depleted', 'expired']);
/** Assigned and not used yet: 'processing' can take up to 10 minutes, the eSIM installs meanwhile (Create orders). */
const UNUSED: ReadonlySet<string> = new Set(['processing', 'queued']);

/** The assignments that still count: a revoked one is 'no longer on the eSIM' (guides/bundle_status). */
const live = (assignments: readonly Assignment[]) => assignments.filter((a) => a.bundleState !== 'revoked');

/** Whether the eSIM's bundles and the installed profile say it reached a phone (no longer refundable to the buyer). */
export function wasInstalled(details: EsimGoDetails, assignments: readonly Assignment[]): boolean {
  // Get eSIM details: Released with a firstInstalledDateTime was installed and removed again;
  // Profile Status Change: Downloaded is on a device already, not yet installed.
  const profile = details.profileStatus?.toLowerCase();
  return (
    profile === 'installed' ||
    profile === 'downloaded' ||
    details.firstInstalledDateTime !== null ||
    assignments.some((a) => STARTED.has(a.bundleState))
  );
}

/** The eSIM's state in our terms. Suspension and deactivation (v2.5 `state`) win over what its bundles say. */
export function esimStatus(details: EsimGoDetails, assignments: readonly Assignment[]): EsimStatus {
  const state = details.state?.toLowerCase();
  if (state === 'suspended') return 'suspended';
  if (state === 'deactivated' || details.profileStatus?.toLowerCase() === 'deactivated') return 'cancelled';
  const current = live(assignments);
  if (current.length === 0) return 'cancelled';
  const started = current.some((a) => STARTED.has(a.bundleState));
  if (current.some((a) => a.bundleState === 'active')) return 'active';
  // A queued top-up behind a used bundle: in use, with data to come.
  if (current.some((a) => UNUSED.has(a.bundleState)))
    return started ? 'active' : wasInstalled(details, assignments) ? 'installed' : 'ready';
  if (current.some((a) => a.bundleState === 'depleted')) return 'used_up';
  return 'expired';
}

/** Where the eSIM is on the phone (My eSIMs' status line); eSIM Go reports no 'enabled' step. */
export function installStepOf(details: EsimGoDetails, assignments: readonly Assignment[]): InstallStep | null {
  const status = esimStatus(details, assignments);
  if (status === 'cancelled') return null;
  if (status === 'expired') return 'expired';
  const profile = details.profileStatus?.toLowerCase();
  if (profile === 'released' && details.firstInstalledDateTime) return 'deleted';
  if (assignments.some((a) => a.bundleState === 'active' || a.bundleState === 'depleted')) return 'in_use';
  if (profile === 'installed') return 'installed';
  if (profile === 'downloaded') return 'downloaded';
  return 'released';
}

/**
 * The eSIM's totals over its bundles still on it (the sale's and its top-ups): bytes as eSIM Go
 * counts them, days from each bundle's catalogue duration. expiresAt: once a bundle started, the end
 * of the latest started one, plus the days of those queued behind it (they start when it ends: our
 * reading of 'queued for use'); before, the last day to install it (INSTALL_WITHIN_DAYS from its first assignment).
 */
export function totalsOf(assignments: readonly Assignment[], daysOf: (bundle: string) => number): TopUpResult {
  const current = live(assignments);
  const totalBytes = current.reduce((sum, a) => sum + a.initialQuantity, 0);
  const usedBytes = current.reduce((sum, a) => sum + Math.max(0, a.initialQuantity - a.remainingQuantity), 0);
  const validityDays = current.reduce((sum, a) => sum + daysOf(a.bundle), 0);
  const ends = current.flatMap((a) => (a.endTime ? [a.endTime.getTime()] : []));
  const queuedDays = current.filter((a) => UNUSED.has(a.bundleState)).reduce((sum, a) => sum + daysOf(a.bundle), 0);
  const firstAssigned = current[0]?.assignmentDateTime;
  const expiresAt =
    ends.length > 0
      ? new Date(Math.max(...ends) + queuedDays * DAY_MS)
      : firstAssigned
        ? new Date(firstAssigned.getTime() + INSTALL_WITHIN_DAYS * DAY_MS)
        : null;
  return { totalBytes, usedBytes, validityDays, expiresAt };
}

/**
 * The LPA string `LPA:1$<SM-DP+ address>$<matching id>` (GSMA SGP.22) from the install details
 * (guides/qr_delivery: 'generate your own QR code'). The docs' examples give the address with a
 * scheme ('http://rsp.example.com'): the LPA string takes the host alone. Never echoes the matching
 * id: it is a credential.
 */
export function lpaOf(iccid: string, smdpAddress: string | null | undefined, matchingId: string | null | undefined) {
  const host = (smdpAddress ?? '')
    .trim()
    .replace(/^https?:\/\//i, '')
    .replace(/\/+$/, '');
  if (!/^[A-Za-z0-9.-]+(:\d+)?$/.test(host) || !matchingId || !/^[A-Za-z0-9-]+$/.test(matchingId)) {
    throw new Error(`${PARTNER} eSIM ${iccid}: no usable SM-DP+ address and matching id`);
  }
  return { activationCode: `LPA:1$${host}$${matchingId}`, smdpAddress: host, matchingId };
}

/** The eSIM as the shop keeps it; throws (without the matching id) when it cannot be installed from what eSIM Go said. */
export function profileOf(details: EsimGoDetails, assignments: readonly Assignment[], daysOf: (bundle: string) => number): EsimProfile {
  const customerRef = details.customerRef?.trim() ?? '';
  const totals = totalsOf(assignments, daysOf);
  return {
    esimTranNo: esimKey({ iccid: details.iccid, customerRef }),
    transactionId: customerRef || null,
    iccid: details.iccid,
    ...lpaOf(details.iccid, details.smdpAddress, details.matchingId),
    // eSIM Go's install details name no APN (the profile sets it).
    apn: null,
    status: esimStatus(details, assignments),
    installed: wasInstalled(details, assignments),
    installStep: installStepOf(details, assignments),
    ...totals,
  };
}
