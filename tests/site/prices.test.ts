import { TEST_ALERTS } from '../support/alert-keys.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApi } from '../../scripts/lib/api-server.ts';
import type { Price } from '../../src/catalogue/schema.ts';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import type { PlanData } from '../../src/features/checkout/plan-data.ts';
import { formatPrice, majorUnits } from '../../src/lib/format.ts';
import { LOCALE_CODES, type Locale } from '../../src/i18n/locales.ts';
import { CURRENCIES, LOCALE_CURRENCY, type Currency } from '../../src/config/currencies.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { createShopApi } from '../../src/server/wiring.ts';
import type { Db } from '../../src/server/db/db.types.ts';
import { migrate } from '../../src/server/db/migrate.ts';
import { openPglite } from '../../src/server/db/pglite.ts';
import { createMailer } from '../../src/server/mail/mailer.ts';
import { createEsimAccessPartner } from '../../src/server/partner/esim-access/adapter.ts';
import { createEsimGoPartner } from '../../src/server/partner/esim-go/adapter.ts';
import { ESIM_ACCESS, partnerRegistry } from '../../src/server/partner/registry.ts';
import { ESIM_GO } from '../../src/server/partner/esim-go/config.ts';
import { createStripe } from '../../src/server/payments/stripe.ts';
import { ApiError, PriceChangedError, type CreateOrderRequest } from '../../src/contract/shop-api.ts';
import { DIST } from '../support/dist.ts';

/**
 * The price a buyer sees on the built pages is the price the shop charges, for every plan (issue
 * 24): each plan's checkout data (/plans/{id}.json, what checkout shows and sends as the expected
 * price) and its card and Product offers on its package page in every language, against what the
 * shop API itself answers to POST /orders (its 409 price_changed names the price it charges), as
 * production builds the API (the committed catalogue snapshot, src/server/start.ts), in every
 * currency (issue 34): the checkout data's price list of each, and the cards in the page language's. A build and a
 * server that price a plan differently fail here, whichever of the two moved.
 */

const planFiles = readdirSync(join(DIST, 'plans')).filter((f) => f.endsWith('.json'));
const builtPlans: PlanData[] = planFiles.map((f) => JSON.parse(readFileSync(join(DIST, 'plans', f), 'utf8')) as PlanData);

/** What the shop answers for each plan in each currency ('de-1gb-7d USD'): the price it charges, or the refusal it gave instead. */
const charged = new Map<string, Price | string>();
const key = (planId: string, currency: Currency) => `${planId} ${currency}`;
let db: Db;
let api: Awaited<ReturnType<typeof serveApi>>;

beforeAll(async () => {
  db = await openPglite();
  await migrate(db);
  // Only the order route's own checks run: a price that is not the shop's is refused before any
  // payment page is opened, so Stripe, the partner and the mail relay are never asked.
  const nowhere = 'http://127.0.0.1:9';
  const handler = createShopApi({
    catalogue: embeddedSnapshot(),
    db,
    stripe: createStripe({ secretKey: 'sk_test_unused', apiUrl: nowhere }),
    stripeWebhookSecret: 'whsec_unused',
    // A buyer per token, signed in now (the price check is the same for everyone).
    accounts: {
      verifyIdToken: async (token) => ({ uid: token, email: `${token}@example.com`, emailVerified: true, signedInAt: new Date() }),
      deleteAccount: async () => undefined,
      // The back office's account changes: this test never calls them.
      find: async () => undefined,
      setDisabled: async () => undefined,
      setRole: async () => undefined,
    },
    siteUrl: 'http://127.0.0.1:4321',
    basePath: '/api',
    // Both partners, as the catalogue sells plans of both (issue 48): a plan only eSIM Go sells has no other partner.
    partners: partnerRegistry({
      [ESIM_ACCESS]: createEsimAccessPartner({ accessCode: 'unused', secretKey: 'unused', baseUrl: nowhere, retries: 0 }),
      [ESIM_GO]: createEsimGoPartner({ apiKey: 'unused', baseUrl: nowhere, retries: 0 }),
    }),
    mailer: createMailer({ smtpUrl: 'smtp://127.0.0.1:9', from: 'orders@localhost' }),
    partnerWebhookToken: 'unused',
    alerts: TEST_ALERTS,
    // 1,160 orders from one test, not from one traveller.
    limits: { ordersPerMinute: 100_000, ordersPerHour: 100_000 },
  });
  api = await serveApi(handler);

  const ask = async ({ plan, currency }: { plan: PlanData; currency: Currency }) => {
    // A price no plan has (zero): the shop answers 409 with the one it charges, and orders nothing.
    const order: CreateOrderRequest = {
      planId: plan.id,
      lang: 'en',
      expectedPrice: { amountMinor: 0, currency },
      consents: { terms: true, immediateStart: true },
    };
    const response = await fetch(`${api.url}/api/orders`, {
      method: 'POST',
      headers: { Authorization: 'Bearer price-check', 'Content-Type': 'application/json' },
      body: JSON.stringify(order),
    });
    const body: unknown = await response.json();
    const changed = PriceChangedError.safeParse(body);
    charged.set(
      key(plan.id, currency),
      response.status === 409 && changed.success
        ? changed.data.error.price
        : `${response.status} ${ApiError.safeParse(body).data?.error.code ?? JSON.stringify(body)}`,
    );
  };
  // A few at a time: the API and its in-process database share this process. Every plan in every currency (issue 34).
  const queue = builtPlans.flatMap((plan) => CURRENCIES.map((currency) => ({ plan, currency })));
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let asked = queue.shift(); asked; asked = queue.shift()) await ask(asked);
    }),
  );
}, 300_000);

afterAll(async () => {
  await api?.close();
  await db?.close();
});

const priceOf = (id: string, currency: Currency) => {
  const price = charged.get(key(id, currency));
  return typeof price === 'object' ? price : undefined;
};

describe('prices on the built pages', () => {
  it('publish checkout data for every plan the shop sells, and only for those', async () => {
    expect(builtPlans.length).toBeGreaterThan(1000);
    const refused = [...charged].filter(([, answer]) => typeof answer === 'string');
    expect(refused, 'plans the built site sells that the shop refuses').toEqual([]);
    // Every plan the shop sells has its page: the catalogue's plans the API answers for, in /packages.
    const sold = new Set<string>();
    for (const code of new Set(builtPlans.map((p) => p.destination.code))) {
      const packages = (await (await fetch(`${api.url}/api/packages?regionId=${code}`)).json()) as { id: string; price?: Price }[];
      for (const p of packages) if (p.price) sold.add(p.id);
    }
    const built = new Set(builtPlans.map((p) => p.id));
    expect(
      [...sold].filter((id) => !built.has(id)),
      'plans the shop sells without a page',
    ).toEqual([]);
  });

  it("show in every plan's checkout data (/plans/{id}.json) the price the shop charges for it, in every currency", () => {
    const drift = builtPlans.flatMap((p) =>
      CURRENCIES.filter((c) => priceOf(p.id, c)?.amountMinor !== p.prices[c]).map(
        (c) => `${p.id} in ${c}: page ${p.prices[c]}, shop ${JSON.stringify(charged.get(key(p.id, c)))}`,
      ),
    );
    expect(drift).toEqual([]);
    expect(builtPlans.filter((p) => JSON.stringify(p.price) !== JSON.stringify(priceOf(p.id, 'EUR')))).toEqual([]);
    expect(charged.size).toBe(builtPlans.length * CURRENCIES.length);
  });

  it.each(LOCALE_CODES)(
    "%s: show on every package page each plan's card at the price the shop charges in the page language's currency, and Product offers that span them",
    (locale: Locale) => {
      const currency = LOCALE_CURRENCY[locale];
      const drift: string[] = [];
      let cards = 0;
      for (const code of new Set(builtPlans.map((p) => p.destination.code))) {
        const path = localizePath(locale, `/package/${code.toLowerCase()}`);
        const html = readFileSync(join(DIST, `${path}.html`), 'utf8');
        const plans = builtPlans.filter((p) => p.destination.code === code);
        for (const plan of plans) {
          const card = new RegExp(`data-plan-id="${plan.id}"[^>]*>(?:(?!</button>)[\\s\\S])*?data-plan-price="true">([^<]*)<`).exec(html);
          const shown = card?.[1];
          const expected = formatPrice(priceOf(plan.id, currency)!, locale);
          if (shown !== expected) drift.push(`${path} ${plan.id}: card ${shown ?? 'missing'}, shop ${expected}`);
          cards++;
        }
        // Product structured data (src/features/seo): the lowest and highest price of the plans on the page.
        const product = [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)]
          .map(
            (m) =>
              JSON.parse(m[1]!) as {
                '@type'?: string;
                offers?: { lowPrice: number; highPrice: number; offerCount: number; priceCurrency: string };
              },
          )
          .find((d) => d['@type'] === 'Product');
        const prices = plans.map((p) => priceOf(p.id, currency)!);
        const amounts = prices.map((p) => p.amountMinor);
        const low = prices[amounts.indexOf(Math.min(...amounts))]!;
        const high = prices[amounts.indexOf(Math.max(...amounts))]!;
        const offers = { lowPrice: majorUnits(low), highPrice: majorUnits(high), offerCount: plans.length, priceCurrency: low.currency };
        if (
          JSON.stringify(
            product?.offers && {
              lowPrice: product.offers.lowPrice,
              highPrice: product.offers.highPrice,
              offerCount: product.offers.offerCount,
              priceCurrency: product.offers.priceCurrency,
            },
          ) !== JSON.stringify(offers)
        ) {
          drift.push(`${path}: Product offers ${JSON.stringify(product?.offers)}, shop ${JSON.stringify(offers)}`);
        }
      }
      expect(drift).toEqual([]);
      expect(cards).toBe(builtPlans.length);
    },
  );
});
