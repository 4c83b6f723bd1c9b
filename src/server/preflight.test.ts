import { describe, expect, it } from 'vitest';
import { EMULATOR_VARIABLES, productionPreflight, STAND_IN_SWITCH } from './preflight.ts';

/** A production environment the preflight passes: live keys, real hosts, every secret. */
const production = (): Record<string, string | undefined> => ({
  DATABASE_URL: 'postgres://shop@/shop?host=/cloudsql/project:europe-west3:shop',
  SITE_URL: 'https://esim.example',
  FIREBASE_PROJECT_ID: 'esim-shop',
  STRIPE_SECRET_KEY: 'sk_live_51abc',
  STRIPE_WEBHOOK_SECRET: 'whsec_abc',
  ESIM_ACCESS_CODE: 'code',
  ESIM_ACCESS_SECRET: 'secret',
  PARTNER_WEBHOOK_TOKEN: 'token',
  SMTP_URL: 'smtps://user:pass@smtp.example.net',
  MAIL_FROM: 'Travel eSIM <orders@esim.example>',
  VAPID_PUBLIC_KEY: 'public',
  VAPID_PRIVATE_KEY: 'private',
  ALERTS_SECRET: 'alerts',
  RECONCILE_TOKEN: 'reconcile',
  AUDIT_TOKEN: 'audit',
  PROVIDER_ALERT_EMAIL: 'owner@esim.example',
  TRUSTED_PROXIES: '1',
});

const problemsWith = (changes: Record<string, string | undefined>) => productionPreflight({ ...production(), ...changes }).problems;

describe('the production preflight', () => {
  it('passes a production set-up, with nothing to report', () => {
    expect(productionPreflight(production())).toEqual({ problems: [], warnings: [] });
  });

  it('warns of a TRUSTED_PROXIES that trusts an entry a direct caller of run.app writes (issue 46 item 3)', () => {
    expect(productionPreflight({ ...production(), TRUSTED_PROXIES: '2' })).toEqual({
      problems: [],
      warnings: [expect.stringMatching(/^TRUSTED_PROXIES=2 .*run\.app.*load balancer/i)],
    });
  });

  it.each([
    ['the Auth emulator', { FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099' }, /FIREBASE_AUTH_EMULATOR_HOST is set/],
    ['a Stripe stand-in', { STRIPE_API_URL: 'http://127.0.0.1:12111' }, /STRIPE_API_URL is set/],
    ['a partner stand-in', { ESIM_ACCESS_BASE_URL: 'http://127.0.0.1:8790' }, /ESIM_ACCESS_BASE_URL is set/],
    ['the push stand-in', { PUSH_SERVICE_STAND_IN_ORIGIN: 'http://127.0.0.1:8090' }, /PUSH_SERVICE_STAND_IN_ORIGIN is set/],
    ['a Stripe test key', { STRIPE_SECRET_KEY: 'sk_test_abc' }, /STRIPE_SECRET_KEY is not a live key/],
    ['a webhook secret that is not one', { STRIPE_WEBHOOK_SECRET: 'sk_live_abc' }, /STRIPE_WEBHOOK_SECRET is not a webhook signing secret/],
    ['plain SMTP to a remote host', { SMTP_URL: 'smtp://user:pass@smtp.example.net:25' }, /no plain text to smtp\.example\.net/],
    ['a missing TRUSTED_PROXIES', { TRUSTED_PROXIES: undefined }, /TRUSTED_PROXIES is not set/],
    ['PGlite (no DATABASE_URL)', { DATABASE_URL: undefined }, /PGlite/],
    ['a missing secret', { ALERTS_SECRET: undefined }, /ALERTS_SECRET is not set/],
    ['a missing scheduler token', { AUDIT_TOKEN: '  ' }, /AUDIT_TOKEN is not set/],
    ['an http site', { SITE_URL: 'http://esim.example' }, /SITE_URL is not an https:\/\/ URL/],
  ])('refuses %s, naming it', (_what, changes, named) => {
    const problems = problemsWith(changes);
    expect(
      problems.some((problem) => named.test(problem)),
      problems.join('\n'),
    ).toBe(true);
  });

  // Issue 46 item 5: firebase-admin takes an emulator's path for any value that is set, blank too.
  // Each the code names, and one firebase-admin does not read today: any *_EMULATOR_HOST is refused all the same.
  const emulatorVariables = [...EMULATOR_VARIABLES, 'PUBSUB_EMULATOR_HOST'];
  it.each(
    emulatorVariables.flatMap((name) => ['', ' ', '\t', '127.0.0.1:9099', 'emulator.example.net:8080'].map((value) => [name, value])),
  )('refuses %s set to %j, whatever its value', (name, value) => {
    const problems = problemsWith({ [name]: value });
    expect(problems, problems.join('\n')).toEqual([expect.stringMatching(new RegExp(`^${name} is set`))]);
    // The test-only switch allows a loopback host only: a blank value is none.
    if (!/^127\./.test(value)) {
      const switched = productionPreflight({ ...production(), [STAND_IN_SWITCH]: '1', [name]: value }).problems;
      expect(switched, switched.join('\n')).toEqual([expect.stringMatching(new RegExp(`^${name} is set`))]);
    }
  });

  it('names every problem at once', () => {
    const problems = problemsWith({
      STRIPE_SECRET_KEY: 'sk_test_abc',
      DATABASE_URL: undefined,
      FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099',
    });
    expect(problems).toHaveLength(4);
  });

  it("refuses prices on the ECB stand-in's rates, and only warns with the test-only switch", () => {
    const standInRates = {
      source: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml (stand-in, rates of fixtures/ecb/eurofxref-daily.xml)',
    };
    expect(productionPreflight(production(), standInRates).problems).toEqual([
      expect.stringMatching(/exchange rates come from the ECB stand-in .*catalogue:generate/),
    ]);
    expect(productionPreflight({ ...production(), [STAND_IN_SWITCH]: '1' }, standInRates)).toMatchObject({
      problems: [],
      warnings: expect.arrayContaining([expect.stringMatching(/ECB stand-in/)]),
    });
    expect(productionPreflight(production(), { source: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml' }).problems).toEqual(
      [],
    );
  });

  it('with the test-only switch, allows stand-ins on loopback only, and says so', () => {
    const standIns = {
      [STAND_IN_SWITCH]: '1',
      FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099',
      STRIPE_API_URL: 'http://127.0.0.1:12111',
      STRIPE_SECRET_KEY: 'sk_test_stand_in',
      ESIM_ACCESS_BASE_URL: 'http://localhost:8790',
    };
    const { problems, warnings } = productionPreflight({ ...production(), ...standIns });
    expect(problems).toEqual([]);
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toContain('never a production one');
    // Not on another host, and a test key only with the Stripe stand-in.
    expect(problemsWith({ ...standIns, STRIPE_API_URL: 'https://stripe.example.net' })).toEqual([
      expect.stringContaining('STRIPE_API_URL is set'),
      expect.stringContaining('STRIPE_SECRET_KEY is not a live key'),
    ]);
    expect(problemsWith({ ...standIns, [STAND_IN_SWITCH]: 'yes' })).toHaveLength(4);
  });
});
