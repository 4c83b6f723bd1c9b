import type Stripe from 'stripe';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { serveApi } from '../../scripts/lib/api-server.ts';
import {
  STAND_IN_SECRET_KEY,
  STAND_IN_WEBHOOK_SECRET,
  startStripeStandIn,
  type StripeStandIn,
  type StripeStandInOptions,
} from '../../stand-ins/stripe/server.ts';
import type { Snapshot } from '../../src/catalogue/schema.ts';
import type { Db } from '../../src/server/db/db.types.ts';
import { createStripe } from '../../src/server/payments/stripe.ts';
import type { ShopApi, ShopApiOptions } from '../../src/server/wiring.ts';
import type { DatabaseDriver } from './databases.ts';
import { startDeliveryStandIns, type DeliveryStandIns } from './delivery-stand-ins.ts';
import { apiCaller, payOnStandIn, testShopApi } from './shop-api.ts';

/** Where nothing listens: a client pointed here is never meant to be called. */
const NOWHERE = 'http://127.0.0.1:9';

export interface ShopTestBedOptions {
  catalogue: Snapshot;
  siteUrl: string;
  /** How long the eSIM partner stand-in takes to allocate a profile (its default without). */
  allocationDelayMs?: number;
  /**
   * The Stripe stand-in (its webhook retries, by default after 0.1 to 1.6 s, settle times), posting
   * its events to the API under test unless `webhooks: false`; `false` for none at all (the Stripe
   * client then points nowhere).
   */
  stripe?: false | (Omit<StripeStandInOptions, 'port' | 'webhookUrl' | 'webhookSecret'> & { webhooks?: boolean });
  /** Whether the partner stand-in's notifications reach the API (default yes). */
  partnerNotifications?: boolean;
  /** Options of the API's builds beside the stand-ins' (e.g. another adapter, a reconcile token). */
  api?: (stand: DeliveryStandIns) => Partial<ShopApiOptions>;
}

/** What a shop test file works with; every part is there from its beforeAll on. */
export interface ShopTestBed {
  db: Db;
  stand: DeliveryStandIns;
  /** Absent with `stripe: false`. */
  stripeStandIn: StripeStandIn;
  stripe: Stripe;
  /** The API being served, and what it serves (a test may swap both: `serve`). */
  handler: ShopApi;
  api: Awaited<ReturnType<typeof serveApi>>;
  /** The API's port, the same for every build served (the stand-ins' webhooks keep reaching it). */
  port: number;
  /** A call to the API under /api, with an ID token when given. */
  call: ReturnType<typeof apiCaller>;
  /** Another build of the API on the same database and stand-ins. */
  build(overrides?: Partial<ShopApiOptions>): ShopApi;
  /** Serves another build on the same port, once the current one's work has settled. */
  serve(next: ShopApi): Promise<void>;
  /** The buyer pays with the test card while the API is down for longer than the Stripe stand-in retries its webhook (about 3 s); then the API is up again on its port. */
  payWhileDown(checkoutUrl: string): Promise<void>;
}

/**
 * The shop API over HTTP as its tests run it, for one database driver: a fresh database, the eSIM
 * partner and SMTP stand-ins, the Stripe stand-in posting its webhooks to the API, and the API
 * served on a free port with Auth emulator tokens. Registers its own beforeAll and afterAll.
 */
export function shopTestBed(driver: DatabaseDriver, options: ShopTestBedOptions): ShopTestBed {
  const bed = {
    call: apiCaller(() => bed.api.url),
    build: (overrides: Partial<ShopApiOptions> = {}) =>
      testShopApi(
        { catalogue: options.catalogue, db: bed.db, stripe: bed.stripe, siteUrl: options.siteUrl, ...bed.stand.options },
        { ...options.api?.(bed.stand), ...overrides },
      ),
    async payWhileDown(checkoutUrl: string) {
      await bed.api.close();
      expect((await payOnStandIn(checkoutUrl, '4242424242424242')).status).toBe(303);
      await new Promise((r) => setTimeout(r, 4_000));
      bed.api = await serveApi(bed.handler, bed.port);
    },
    async serve(next: ShopApi) {
      await bed.handler?.fulfilment.settled();
      await bed.handler?.alerts.stop();
      await bed.api.close();
      bed.handler = next;
      bed.api = await serveApi(next, bed.port);
    },
  } as ShopTestBed;

  beforeAll(async () => {
    process.env.FIREBASE_AUTH_EMULATOR_HOST = inject('authEmulatorHost');
    bed.db = await driver.open();
    const { allocationDelayMs } = options;
    bed.stand = await startDeliveryStandIns(allocationDelayMs === undefined ? {} : { allocationDelayMs });
    const { webhooks = true, ...stripeOptions } = options.stripe === false ? {} : (options.stripe ?? {});
    if (options.stripe === false) {
      bed.stripe = createStripe({ secretKey: STAND_IN_SECRET_KEY, apiUrl: NOWHERE });
    } else if (!webhooks) {
      bed.stripeStandIn = await startStripeStandIn({
        port: 0,
        webhookUrl: `${NOWHERE}/none`,
        webhookSecret: STAND_IN_WEBHOOK_SECRET,
        ...stripeOptions,
      });
      bed.stripe = createStripe({ secretKey: STAND_IN_SECRET_KEY, apiUrl: bed.stripeStandIn.url });
    } else {
      // The Stripe stand-in needs the API's URL for its webhooks, the API a client of the stand-in:
      // a placeholder takes the port first.
      bed.api = await serveApi(() => Promise.resolve(new Response(null, { status: 503 })));
      bed.port = Number(new URL(bed.api.url).port);
      bed.stripeStandIn = await startStripeStandIn({
        port: 0,
        webhookUrl: `${bed.api.url}/api/webhooks/stripe`,
        webhookSecret: STAND_IN_WEBHOOK_SECRET,
        retryDelaysMs: [100, 200, 400, 800, 1600],
        ...stripeOptions,
      });
      bed.stripe = createStripe({ secretKey: STAND_IN_SECRET_KEY, apiUrl: bed.stripeStandIn.url });
      await bed.api.close();
    }
    bed.handler = bed.build();
    bed.api = await serveApi(bed.handler, bed.port);
    bed.port = Number(new URL(bed.api.url).port);
    if (options.partnerNotifications !== false) bed.stand.connect(`${bed.api.url}/api`);
  });
  afterAll(async () => {
    await bed.handler?.fulfilment.settled();
    // Its 'eSIM ready' timers too: one must not fire on a closed database.
    await bed.handler?.alerts.stop();
    await bed.api?.close();
    await bed.stripeStandIn?.close();
    await bed.stand?.close();
    await bed.db?.close();
  });
  return bed;
}
