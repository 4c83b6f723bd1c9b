import { describe, expect, it } from 'vitest';
import { shopConfigFromEnv } from '../../src/server/config.ts';

describe('the shop API configuration', () => {
  const live = { STRIPE_SECRET_KEY: 'sk_live_x', STRIPE_WEBHOOK_SECRET: 'whsec_x', FIREBASE_PROJECT_ID: 'esim-shop', PUBLIC_SITE_URL: 'https://shop.example-travel.com' };

  it('refuses to start without the Stripe keys and a Firebase project, naming each', () => {
    expect(() => shopConfigFromEnv({})).toThrow('The shop API needs STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, FIREBASE_PROJECT_ID');
    expect(() => shopConfigFromEnv({ ...live, STRIPE_WEBHOOK_SECRET: ' ' })).toThrow('needs STRIPE_WEBHOOK_SECRET (');
  });

  it('uses PGlite under .data/ unless DATABASE_URL is set, and the real Stripe unless STRIPE_API_URL is', () => {
    expect(shopConfigFromEnv(live)).toMatchObject({ databaseUrl: undefined, dataDir: '.data/pglite', stripeApiUrl: undefined, firebaseProjectId: 'esim-shop' });
    expect(shopConfigFromEnv({ ...live, DATABASE_URL: 'postgres://db/shop' }).databaseUrl).toBe('postgres://db/shop');
  });

  it('sends buyers back to the site and lets only its origin call the order routes from a browser', () => {
    expect(shopConfigFromEnv(live)).toMatchObject({ siteUrl: 'https://shop.example-travel.com', allowedOrigins: ['https://shop.example-travel.com'] });
    expect(shopConfigFromEnv({ ...live, SITE_URL: 'http://127.0.0.1:4321' }).allowedOrigins).toEqual(['http://127.0.0.1:4321']);
  });

  it('verifies Auth emulator tokens of the demo project when the emulator is configured', () => {
    const { FIREBASE_PROJECT_ID: _, ...withoutProject } = live;
    expect(shopConfigFromEnv({ ...withoutProject, FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099' }).firebaseProjectId).toBe('demo-esim');
  });
});
