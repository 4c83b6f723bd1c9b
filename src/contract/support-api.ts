import { z } from 'zod';
import { SUPPORT_MESSAGE_MAX, SUPPORT_MESSAGE_MIN } from '../config/constants.ts';
import { LOCALE_CODES } from '../i18n/locales.ts';

/**
 * Support that sees the order (issue 32 item 4): the buyer's side of the shop API, one schema per
 * request and answer, used by the server (src/server/support), the support form and the tests.
 *
 *   GET  /support/form                        → SupportForm (a signed timestamp: the form was shown then; no sign-in)
 *   POST /support            SupportRequest   → 201 SupportCreated (signed in: optional Bearer token, picks
 *                                                one of their orders or eSIMs by id; a visitor gives an e-mail and
 *                                                may name an order by its number, of which nothing is ever told back)
 *                                                400 bad_request (the fields), 400 spam_suspected (the honeypot filled,
 *                                                or sent sooner than SUPPORT_FORM_MIN_MS after the form was shown, or
 *                                                a form token not ours or older than a day), 404 not_found (an order
 *                                                not the caller's), 429 too_many_requests (per account, or per address
 *                                                and per e-mail for visitors)
 *   GET  /support                              → SupportList (the caller's own requests with their messages, newest first)
 *   POST /support/{id}/messages SupportFollowUp → SupportView (the caller's own request: a new message reopens it)
 */

/** The shortest time between showing the form and sending it that a person takes (a bot posts at once). */
export const SUPPORT_FORM_MIN_MS = 3_000;
/** How long a form token stays good. */
export const SUPPORT_FORM_MAX_AGE_MS = 24 * 3_600_000;
// The message's length bounds live with the constants, so the profile's island checks them without zod.
export { SUPPORT_MESSAGE_MAX, SUPPORT_MESSAGE_MIN } from '../config/constants.ts';

export const SupportForm = z.object({ formToken: z.string() });
export type SupportForm = z.infer<typeof SupportForm>;

export const PhoneSystemName = z.enum(['ios', 'android', 'other']);

const Message = z.string().trim().min(SUPPORT_MESSAGE_MIN).max(SUPPORT_MESSAGE_MAX);

export const SupportRequest = z.object({
  message: Message,
  lang: z.enum(LOCALE_CODES),
  /** A visitor's address (a signed-in buyer's comes from their account). */
  email: z.email().max(320).optional(),
  /** A signed-in buyer's order or eSIM (an eSIM's id is its order's). */
  orderId: z.uuid().optional(),
  /** A visitor's order number as they have it (ES-2026-000123); shown only to the provider. */
  orderNumber: z.string().trim().max(40).optional(),
  /** The phone the form was sent from, and the diagnosis' cause on the page ("Not working?"). */
  phone: PhoneSystemName.optional(),
  cause: z
    .string()
    .regex(/^[a-z_]{1,30}$/)
    .optional(),
  /** The honeypot: a field people never see; anything in it is a bot's. */
  website: z.string().max(500).optional(),
  formToken: z.string().max(200),
});
export type SupportRequest = z.infer<typeof SupportRequest>;

export const SupportFollowUp = z.object({ message: Message });
export type SupportFollowUp = z.infer<typeof SupportFollowUp>;

const Iso = z.iso.datetime({ offset: true });

export const SupportMessage = z.object({
  author: z.enum(['buyer', 'operator']),
  body: z.string(),
  createdAt: Iso,
});
export type SupportMessage = z.infer<typeof SupportMessage>;

export const SupportView = z.object({
  id: z.string(),
  /** What the e-mails quote: SR-1A2B3C4D. */
  reference: z.string(),
  state: z.enum(['open', 'closed']),
  createdAt: Iso,
  /** The order or eSIM it is about, for its owner. */
  orderNumber: z.string().nullable(),
  messages: z.array(SupportMessage),
});
export type SupportView = z.infer<typeof SupportView>;

export const SupportList = z.object({ requests: z.array(SupportView) });
export type SupportList = z.infer<typeof SupportList>;

export const SupportCreated = z.object({ id: z.string(), reference: z.string() });
export type SupportCreated = z.infer<typeof SupportCreated>;

export const SUPPORT_ERROR_CODES = {
  /** 400: the honeypot was filled, the form sent too soon after it was shown, or its token is not good. */
  spamSuspected: 'spam_suspected',
} as const;

/** A request's reference from its id. */
export const supportReference = (id: string) => `SR-${id.slice(0, 8).toUpperCase()}`;

/** Support requests and follow-ups a signed-in buyer, or a visitor's address, may send in an hour. */
export const SUPPORT_REQUESTS_PER_HOUR = 5;
/**
 * Requests whose confirmation goes to an address nobody has proven (a visitor's, or an account's not
 * yet verified) that one mailbox may be sent in a day, whoever asks and from wherever (issue 46 item 3).
 */
export const SUPPORT_REQUESTS_PER_RECIPIENT_PER_DAY = 5;
/** Such requests the whole shop takes in an hour, from everyone together: no header or address resets it. */
export const SUPPORT_UNPROVEN_REQUESTS_PER_HOUR = 20;
