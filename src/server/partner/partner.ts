import { BUYER_PARTNER_WAIT_MS } from '../../config/constants.ts';
import type { EsimPartner, EsimProfile, PartnerErrorKind, PartnerReadOptions } from './partner.types.ts';

/** A read a buyer's request waits for: it gives up its turn after BUYER_PARTNER_WAIT_MS. */
export const forAWaitingBuyer = (): PartnerReadOptions => ({ signal: AbortSignal.timeout(BUYER_PARTNER_WAIT_MS) });

/** The partner's profile of one eSIM as it is now; undefined when its answer does not list it (or it is still being allocated). */
export async function profileOf(partner: EsimPartner, esimTranNo: string, options?: PartnerReadOptions): Promise<EsimProfile | undefined> {
  const answer = await partner.queryProfiles({ esimTranNo }, options);
  return answer.status === 'ready' ? answer.profiles.find((p) => p.esimTranNo === esimTranNo) : undefined;
}

/** The partner's profile of one eSIM as it is now; throws when the partner does not list it. */
export async function listedProfile(partner: EsimPartner, esimTranNo: string): Promise<EsimProfile> {
  const profile = await profileOf(partner, esimTranNo);
  if (!profile) throw new Error(`${esimTranNo}: the partner did not list it`);
  return profile;
}

/** A failed partner call: names the partner and the call, and says whether trying again may help. */
export class PartnerError extends Error {
  readonly partner: string;
  /** The partner's name for the call ('package/list'). */
  readonly call: string;
  /** The partner's error code ('101003'), or 'HTTP 503', or undefined for a network failure. */
  readonly code: string | undefined;
  /** What the refusal means in our terms, when it is one the shop acts on. */
  readonly kind: PartnerErrorKind | undefined;
  /**
   * Whether the same call may succeed soon (network, time-out, 5xx, busy). A refusal such as
   * out_of_stock is not retryable here; a later job may still try again much later.
   */
  readonly retryable: boolean;
  /** How many requests were made before giving up. */
  readonly attempts: number;
  /** No request of the call reached the partner (its connection refused every time): nothing was applied, though it did not say no. */
  readonly notSent: boolean;

  /**
   * Whether the partner said no, in an answer we read: nothing was applied. Anything else (no
   * answer, a time-out, a 5xx, an answer we could not read) may have been applied (DESIGN 7).
   */
  get refused(): boolean {
    return !this.retryable && this.code !== undefined && !this.code.startsWith('HTTP');
  }

  constructor(
    details: {
      partner: string;
      call: string;
      code?: string | undefined;
      kind?: PartnerErrorKind | undefined;
      retryable: boolean;
      attempts: number;
      reason: string;
      notSent?: boolean;
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
    this.kind = details.kind;
    this.retryable = details.retryable;
    this.attempts = details.attempts;
    this.notSent = details.notSent ?? false;
  }
}
