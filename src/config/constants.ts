/**
 * Business constants of spec section 9, kept in one place.
 * Anything that reads one of these numbers imports it from here.
 */

/** Delay before language auto-detection runs on an unprefixed page (spec 9). */
export const LANGUAGE_DETECTION_DELAY_MS = 200;
/** Delay between the browser's install event and our install prompt (spec 9). */
export const INSTALL_PROMPT_DELAY_MS = 2_000;
/** Automatic redirect from /payment-success to /my-esim (spec 9). */
export const PAYMENT_SUCCESS_REDIRECT_MS = 5_000;
/** The confirmation's pause before asking again when a long-poll was cut off (a network change, a proxy's time-out)… */
export const ORDER_POLL_INTERVAL_MS = 2_000;
/** …and gives up after this long, offering to check again. */
export const ORDER_POLL_LIMIT_MS = 120_000;
/** Each of the confirmation's long-polls waits this long at most for the order to change (the API's limit: 25 s). */
export const ORDER_WAIT_MS = 20_000;
/** My eSIMs asks for the install steps this often while an eSIM is on its way to use and the tab is visible (a database read, no partner call). */
export const ESIM_STEP_POLL_INTERVAL_MS = 5_000;
/** Downloaded but not installed for this long: My eSIMs offers the help (the install may be waiting on the phone). */
export const DOWNLOADED_HELP_AFTER_MS = 10 * 60_000;

/**
 * Deleting the account needs a sign-in this recent: the server refuses an older one, and the
 * profile asks to sign in again a minute before that, so its request never arrives too late.
 */
export const RECENT_SIGN_IN_MS = 5 * 60_000;

/** The back office's admin actions (refunds, blocks, the sales pause, reports) want a sign-in this recent (issue 30). */
export const OPS_ADMIN_SIGN_IN_MS = 12 * 60 * 60_000;
/**
 * An operator action still 'started' this long after its try began was cut off (its instance
 * died): the same click may run it again. Longer than any action takes (a refund waits for Stripe
 * under its retries), so one under way is never run twice at once.
 */
export const OPS_ACTION_STALE_MS = 5 * 60_000;
/** The back office's lists (orders, support requests) show at most this many rows: a search narrows them. */
export const OPS_LIST_LIMIT = 100;
/** The partner's prepaid balance below this (US dollars) e-mails the provider, once per crossing. */
export const LOW_BALANCE_USD = 200;
/** How often each API instance's own reconcile job looks for stuck orders (the scheduler's call comes each minute besides). */
export const RECONCILE_EVERY_MS = 5_000;
/**
 * A closed order's payment page that Stripe could not be asked to close (payments/checkout-expiry.ts)
 * is tried again after these waits (the last one repeats), each try's claim held `claimMs` so that
 * another instance's job does not take it meanwhile.
 */
export const CHECKOUT_EXPIRY_RETRY = { delaysMs: [10_000, 30_000, 90_000, 270_000, 300_000], claimMs: 60_000 } as const;
/** The reconcile job reads the partner's balance for that alert at most this often (across every API instance). */
export const LOW_BALANCE_CHECK_EVERY_MS = 10 * 60_000;

/**
 * A partner's circuit breaker (issue 48 item 6): this many failed calls in a row (no answer, a
 * time-out, a 5xx; never a refusal) and new orders go to another partner that sells the plan,
 * for `openMs`; then one call decides (a success closes it, a failure opens it again).
 */
export const PARTNER_BREAKER = { failures: 5, openMs: 30_000 } as const;

/**
 * Spreading a rush over the partners (issue 48): an order goes to a dearer partner whose margin
 * holds only while the cheaper one's deliveries under way in this instance would take longer than
 * this at its budget's rate (each its requests a delivery), and the dearer one's less. Below it, the cheapest.
 */
export const PARTNER_BUSY_AFTER_SECONDS = 1;

/** A delivery whose eSIM was never read back ready (refunded, its process restarted) stops counting as under way after this (partner/deliveries-in-flight.ts). */
export const DELIVERY_IN_FLIGHT_MAX_MS = 5 * 60_000;

/**
 * An order sent to a partner whose answers keep being lost, and which the partner says it does not
 * hold, goes to another partner once it was first sent this long ago; sooner, a request still on its
 * way could yet be applied (a second eSIM). Longer than any partner's request time-out (30 s by default).
 */
export const PARTNER_WRITE_GONE_AFTER_MS = 60_000;

/**
 * The reconcile job's look for purchases no order claims (reconcile/partner-orphans.ts), once an
 * hour: among the orders placed from a week ago until an hour ago (by then the shop's own tries have
 * read back every order of theirs; eSIM Go refunds an unused bundle for about 60 days).
 */
export const PARTNER_ORPHANS = { everyMs: 60 * 60_000, settleMs: 60 * 60_000, lookBackMs: 7 * 24 * 60 * 60_000 } as const;

/** Local-storage keys (spec 3). */
export const STORAGE_KEYS = {
  cookieConsent: 'cookie_consent_minimal',
  language: 'preferred_language',
  languageUserPicked: 'language_user_picked',
  theme: 'theme',
  /** The signed-in user's eSIMs as last loaded, for reading offline (issue 15 item 8); removed on log-out. */
  savedEsims: 'my_esims',
  /** The currency the visitor picked (issue 34); absent: the browser's region guesses, else the page's language. */
  currency: 'preferred_currency',
} as const;

/** The two answers of the cookie banner, stored under STORAGE_KEYS.cookieConsent (spec 3). */
export const COOKIE_CONSENT_VALUES = ['accepted', 'rejected'] as const;

/** Session-storage key: 'Not now' on the install prompt holds until the browser session ends. */
export const INSTALL_PROMPT_DISMISSED_KEY = 'install_prompt_dismissed';

/**
 * Settings defaults (spec 9). Push notifications are no longer a stored setting (issue 23): a
 * device is subscribed only by a click on the profile's switch, and the alerts themselves are on
 * by default on the server (GET /me/alerts).
 */
export const DARK_MODE_DEFAULT = false;

/** Minimum password length (spec 5 and 9). */
export const MIN_PASSWORD_LENGTH = 6;

/** Marketing claim: number of countries covered (spec 1 and 9). */
export const COVERAGE_CLAIM_COUNTRIES = 200;

/**
 * Legal pages' last-updated date (spec 2 and 9 say October 2025; the terms and privacy policy
 * changed when payment went live, the privacy policy again for alerts: issue 23). Also the
 * version of the legal texts a buyer accepts (TERMS_VERSION).
 */
export const LEGAL_LAST_UPDATED = '2026-11-24';

/** FAQ figures (spec 9). */
export const ACTIVATION_MINUTES = { usualMin: 5, usualMax: 15, worstCaseHours: 24 } as const;
export const REFUND_WINDOW_DAYS = 30;
export const REFUND_PROCESSING_BUSINESS_DAYS = { min: 5, max: 7 } as const;

/** My eSIMs shows the partner's data use at most this old; older, the API asks the partner again (issue 15). */
export const ESIM_USAGE_MAX_AGE_MS = 5 * 60_000;
/**
 * A paid eSIM not delivered within this long is refunded with its e-mail, whatever retries are
 * left (issue 32 item 3); the checkout and payment pages say so. Peers promise 70 minutes at best.
 */
export const DELIVERY_PROMISE_MS = 60 * 60_000;
/**
 * A buyer's refund answers once it is done, or after this long with the eSIM shown refunding: the
 * refund goes on (the order's job) and My eSIMs follows it. In a rush the partner's budget serves
 * deliveries first, and waiting for the cancel would outlast a proxy's usual 30 s (a 502).
 */
export const BUYER_REFUND_ANSWER_MS = 10_000;
/**
 * A buyer's request that reads the partner (a refund's or a replacement's check, top-ups, My
 * eSIMs' data use, "Not working?") waits this long at most for a turn in the partner's budget;
 * then it answers "try again" or the last known figures. In a rush every turn goes to deliveries
 * (issue 31), and a page left waiting for a minute would end in a gateway's time-out.
 */
export const BUYER_PARTNER_WAIT_MS = 3_000;
/** "Not working?" reads the eSIM's state from the partner at most this often per eSIM (issue 32: the shared partner budget). */
export const DIAGNOSIS_READ_EVERY_MS = 60_000;

/**
 * Per-user limits of the shop API's routes that cost a Stripe Checkout Session or calls to the
 * eSIM partner (issue 20, DESIGN 7: the partner's 8 requests a second are one budget for the
 * whole shop). Above them the API answers 429 with Retry-After. POST /orders counts orders and
 * top-ups alike; each limit is a fixed window per user, kept in PostgreSQL for every API instance.
 */
export const ORDERS_PER_USER_PER_MINUTE = 10;
/** A cart (POST /carts, issue 33): 1 to CART_MAX_PER_PLAN of a plan, at most CART_MAX_ESIMS eSIMs in all; each counts as an order above. */
export const CART_MAX_PER_PLAN = 10;
export const CART_MAX_ESIMS = 10;
/** The header that carries a traveller's link token (issue 33): the page reads it from the link's fragment, never puts it in a URL a server logs. */
export const TRAVELLER_TOKEN_HEADER = 'X-Traveller-Token';
export const ORDERS_PER_USER_PER_HOUR = 30;
export const REFUND_REQUESTS_PER_USER_PER_MINUTE = 5;
/** GET /esims/{id}/top-ups asks the partner for the eSIM's own top-ups each time. */
export const TOP_UP_LISTS_PER_USER_PER_MINUTE = 20;
/** PUT /esims/{id}/traveller (issue 33): each may e-mail an address the buyer typed, so a buyer cannot use the shop to flood one. */
export const TRAVELLER_LINKS_PER_USER_PER_HOUR = 20;
/**
 * GET /esims reads stale data use from the partner (one call per 10 eSIMs) at most this often per
 * user; beyond it My eSIMs shows the figures it has, and concurrent reads of one user share one call.
 */
export const ESIM_USAGE_REFRESHES_PER_USER_PER_MINUTE = 6;

/**
 * Fraud signals (issue 30 item 7, src/server/fraud/signals.ts): an order is flagged when its
 * account placed this many orders (itself included) within FRAUD_WINDOW_MS before it, or asked for
 * this many refunds within FRAUD_WINDOW_MS up to one of this order's.
 */
export const FRAUD_WINDOW_MS = 24 * 3600_000;
export const FRAUD_ORDERS_PER_WINDOW = 5;
export const FRAUD_REFUND_REQUESTS_PER_WINDOW = 3;
/** A held order (Radar's highest risk) waiting this long for an admin's decision is named by the order audit. */
export const HELD_ORDER_AUDIT_AFTER_MS = 24 * 3600_000;
/**
 * The reconcile job reads the charge of a payment whose read failed at the time, for payments at
 * most this old (older ones predate the charge facts), this many a run.
 */
export const CHARGE_FACTS_FILL_WINDOW_MS = 7 * 24 * 3600_000;
export const CHARGE_FACTS_FILL_PER_RUN = 20;
/**
 * Long-polls (GET /orders/{id}?waitMs) one user may hold open at once on one API instance (the
 * payment success page holds one); another answers 429 with Retry-After. Each costs no database
 * read while it waits: the change itself wakes it (src/server/orders/order-changes.ts).
 */
export const ORDER_WAITS_PER_USER = 5;

/**
 * Alerts (issue 23). The data alert goes once this share of the eSIM's data is used (a top-up
 * starts a new round); the validity alert once its end is this close (the partner's
 * VALIDITY_USAGE comes about a day before).
 */
export const ALERT_DATA_USED_SHARE = 0.8;
export const ALERT_VALIDITY_LEFT_MS = 24 * 60 * 60_000;
/**
 * An eSIM with no data by noon (UTC) of the day after the trip start the buyer gave gets the
 * get-connected checklist (issue 32 item 3): late enough for any arrival time zone to have had a
 * day, and looked for no later than TRIP_CHECK_WITHIN_MS after (stale by then).
 */
export const TRIP_CHECK_AFTER_START_MS = 36 * 60 * 60_000;
export const TRIP_CHECK_WITHIN_MS = 48 * 60 * 60_000;
/** How far back and ahead a trip start may be given at checkout (days). */
export const TRIP_START_PAST_DAYS = 7;
export const TRIP_START_AHEAD_DAYS = 365;
/** A support message's length in characters, trimmed (src/contract/support-api.ts). */
export const SUPPORT_MESSAGE_MIN = 10;
export const SUPPORT_MESSAGE_MAX = 4_000;
/** 'eSIM ready' is pushed this long after delivery to a buyer who has not seen the eSIM by then (closed the payment page). */
export const ALERT_READY_AFTER_MS = 60_000;
/** The reconcile job sends a ready alert a restart lost only within this long of delivery: later it would be noise. */
export const ALERT_READY_WITHIN_MS = 60 * 60_000;
/** A send that failed is tried again by the reconcile job within this long of the alert, then left (stale news). */
export const ALERT_RETRY_WITHIN_MS = 24 * 60 * 60_000;
/**
 * A failed send waits this long before the job tries it again, twice as long after each further
 * failure (1, 2, 4 … 64 minutes), and is given up after ALERT_SEND_ATTEMPTS sends, about two hours on.
 */
export const ALERT_RETRY_FIRST_WAIT_MS = 60_000;
export const ALERT_SEND_ATTEMPTS = 8;
/** Alerts sent at once (each to the mail relay and the buyer's devices): more wait their turn, off the reconcile job. */
export const ALERT_SENDS_AT_ONCE = 4;
/** The partner's DATA_USAGE hints gather this long before one batched usage read (10 eSIMs a call). */
export const ALERT_USAGE_BATCH_MS = 2_000;

/**
 * Suspending, unsuspending or revoking an eSIM at the partner (issue 30): sends at most this many
 * times when an answer is lost and a read of the eSIM shows it was not applied; then the action
 * is left unsettled for the operator to ask again (src/server/esims/service-actions.ts).
 */
export const ESIM_SERVICE_ACTION_SENDS = 3;
