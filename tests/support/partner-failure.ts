import { expect } from 'vitest';
import { PartnerError } from '../../src/server/partner/partner.ts';

/** The PartnerError a partner call failed with (the test fails if it succeeded or failed otherwise). */
export async function partnerFailure(promise: Promise<unknown>): Promise<PartnerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PartnerError);
  return error as PartnerError;
}
