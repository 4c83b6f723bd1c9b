import { describe, expect, it } from 'vitest';
import { shopConfigFromEnv } from './config.ts';

describe('the shop API configuration', () => {
  const live = {
    STRIPE_SECRET_KEY: 'sk_live_x',
    STRIPE_WEBHOOK_SECRET: 'whsec_x',
    FIREBASE_PROJECT_ID: 'esim-shop',
    PUBLIC_SITE_URL: 'https://shop.example-travel.com',
    ESIM_ACCESS_CODE: 'code',
    ESIM_ACCESS_SECRET: 'secret',
    PARTNER_WEBHOOK_TOKEN: 'a-long-random-token',
    SMTP_URL: 'smtps://user:pass@smtp.example.com',
    MAIL_FROM: 'Travel eSIM <orders@example.com>',
    VAPID_PUBLIC_KEY: 'BPublic',
    VAPID_PRIVATE_KEY: 'private',
    ALERTS_SECRET: 'a-long-random-secret',
  };

  it('refuses to start without the Stripe keys, the partner account, mail and a Firebase project, naming each', () => {
    expect(() => shopConfigFromEnv({})).toThrow(
      'The shop API needs STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, ESIM_ACCESS_CODE, ESIM_ACCESS_SECRET, PARTNER_WEBHOOK_TOKEN, SMTP_URL, MAIL_FROM, VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY, ALERTS_SECRET, FIREBASE_PROJECT_ID',
    );
    expect(() => shopConfigFromEnv({ ...live, SMTP_URL: '' })).toThrow('needs SMTP_URL (');
    expect(() => shopConfigFromEnv({ ...live, STRIPE_WEBHOOK_SECRET: ' ' })).toThrow('needs STRIPE_WEBHOOK_SECRET (');
  });

  it('uses PGlite under .data/ unless DATABASE_URL is set, and the real Stripe unless STRIPE_API_URL is', () => {
    expect(shopConfigFromEnv(live)).toMatchObject({
      databaseUrl: undefined,
      dataDir: '.data/pglite',
      stripeApiUrl: undefined,
      firebaseProjectId: 'esim-shop',
    });
    expect(shopConfigFromEnv({ ...live, DATABASE_URL: 'postgres://db/shop' }).databaseUrl).toBe('postgres://db/shop');
  });

  it('talks to the real eSIM Access unless ESIM_ACCESS_BASE_URL says otherwise, and runs the reconcile route only with a token', () => {
    expect(shopConfigFromEnv(live)).toMatchObject({
      partner: { accessCode: 'code', baseUrl: 'https://api.esimaccess.com' },
      reconcileToken: undefined,
    });
    expect(shopConfigFromEnv({ ...live, ESIM_ACCESS_BASE_URL: 'http://127.0.0.1:8790', RECONCILE_TOKEN: 't' })).toMatchObject({
      partner: { baseUrl: 'http://127.0.0.1:8790' },
      reconcileToken: 't',
    });
  });

  it('sends buyers back to the site and lets only its origin call the order routes from a browser', () => {
    expect(shopConfigFromEnv(live)).toMatchObject({
      siteUrl: 'https://shop.example-travel.com',
      allowedOrigins: ['https://shop.example-travel.com'],
    });
    expect(shopConfigFromEnv({ ...live, SITE_URL: 'http://127.0.0.1:4321' }).allowedOrigins).toEqual(['http://127.0.0.1:4321']);
  });

  it('takes clients for directly connected unless TRUSTED_PROXIES counts the proxies in front', () => {
    expect(shopConfigFromEnv(live).trustedProxies).toBe(0);
    expect(shopConfigFromEnv({ ...live, TRUSTED_PROXIES: '2' }).trustedProxies).toBe(2);
    for (const wrong of ['-1', '1.5', 'two'])
      expect(() => shopConfigFromEnv({ ...live, TRUSTED_PROXIES: wrong })).toThrow('TRUSTED_PROXIES');
  });

  it('verifies Auth emulator tokens of the demo project when the emulator is configured', () => {
    const { FIREBASE_PROJECT_ID: _, ...withoutProject } = live;
    expect(shopConfigFromEnv({ ...withoutProject, FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099' }).firebaseProjectId).toBe('demo-esim');
  });

  it('reads the alerts keys, with the push contact from MAIL_FROM and the API under the site unless set', () => {
    expect(shopConfigFromEnv(live)).toMatchObject({
      vapid: { publicKey: 'BPublic', privateKey: 'private', subject: 'mailto:orders@example.com' },
      alertsSecret: 'a-long-random-secret',
      publicApiUrl: 'https://shop.example-travel.com/api',
    });
    expect(
      shopConfigFromEnv({
        ...live,
        VAPID_SUBJECT: 'https://shop.example-travel.com/contact',
        PUBLIC_API_URL: 'https://api.example-travel.com/',
      }),
    ).toMatchObject({
      vapid: { subject: 'https://shop.example-travel.com/contact' },
      publicApiUrl: 'https://api.example-travel.com',
    });
  });

  it('takes the push-service stand-in only when PUSH_SERVICE_STAND_IN_ORIGIN names it: an http origin on loopback, never with a real site', () => {
    const local = { ...live, SITE_URL: 'http://127.0.0.1:4321' };
    expect(shopConfigFromEnv(live).pushServiceStandInOrigin).toBeUndefined();
    expect(shopConfigFromEnv({ ...local, PUSH_SERVICE_STAND_IN_ORIGIN: 'http://127.0.0.1:8090' }).pushServiceStandInOrigin).toBe(
      'http://127.0.0.1:8090',
    );
    for (const wrong of [
      'https://127.0.0.1:8090',
      'http://10.0.0.1:8090',
      'http://169.254.169.254',
      'http://127.0.0.1:8090/push',
      'nowhere',
    ])
      expect(() => shopConfigFromEnv({ ...local, PUSH_SERVICE_STAND_IN_ORIGIN: wrong })).toThrow('PUSH_SERVICE_STAND_IN_ORIGIN must be');
    expect(() => shopConfigFromEnv({ ...live, PUSH_SERVICE_STAND_IN_ORIGIN: 'http://127.0.0.1:8090' })).toThrow(
      'PUSH_SERVICE_STAND_IN_ORIGIN is for the local stand-in only',
    );
  });
});
