import { expect, test, type Page } from '@playwright/test';
import { createAccount, failGoogleApis, recordNavigations, uniqueEmail } from './auth-support.ts';
import { messages, speak } from './support.ts';

/**
 * The way back after login or sign-up (?next=) in Chromium, whose URL parser is the one that
 * matters: it drops tab, LF and CR anywhere and every C0 control at the start, so
 * '/\t/evil.example' is '//evil.example', another site. Each case lands on its page at once.
 *
 * Both forms decide in one place: arriving signed in and signing in there (by the form, or any
 * other way) both run the form's one effect on the session, `window.location.replace(safeNext(…))`
 * (src/features/auth/LoginForm.tsx, SignupForm.tsx; src/features/auth/redirect.ts). So the
 * signed-in tests walk every case in Chromium with one sign-in, and the tests that log in or sign
 * up there each keep one case of every kind (a signed-out visitor costs a sign-in per case). The
 * signed-in walks share the cases out between the two forms: each walks one of every kind and the
 * three controls the parser drops, and half of the rest, so every case runs in Chromium once (each
 * page costs 2-3 s: the form loads Firebase to restore the session). Every control character is also
 * checked against safeNext in Node (src/features/auth/auth.test.ts).
 */
const m = messages('en', 'auth');
const PASSWORD = 'travel-safe-1';
const FORMS = ['/login', '/signup'] as const;
const CONTROLS = Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code));
const DROPPED = ['\t', '\n', '\r'];

/**
 * One case of each kind for a visitor who signs in on the form: a path on this site kept, a
 * control the parser drops, another site, a form in another language (every case: the signed-in
 * tests).
 */
const REPRESENTATIVE = ['/history?tab=all', '/\t/evil.example', '//evil.example', '/de/login'];

/** [next, where the visitor lands]: the profile whenever next leads off the site or back to a form. */
function cases(profile: string): Array<[string, string]> {
  const usual = ['//evil.example', '/\\evil.example', '\\/evil.example', 'https://evil.example/', 'javascript:alert(document.domain)'];
  const forms = ['/login', '/signup', '/de/login', '/ar/signup', '/login.html', '/de/login/', '/login?next=%2Fprofile'];
  return [
    ['/history?tab=all', '/history?tab=all'],
    // A control the parser keeps is just part of a path on this site.
    ...CONTROLS.map((c): [string, string] => [
      `/${c}/evil.example`,
      DROPPED.includes(c) ? profile : `/${encodeURIComponent(c)}/evil.example`,
    ]),
    ...usual.map((next): [string, string] => [next, profile]),
    ...forms.map((next): [string, string] => [next, profile]),
  ];
}

/** The cases `form` walks signed in: one of every kind, the controls the parser drops, and its half of the rest. */
const signedInCasesOf = (form: (typeof FORMS)[number]) =>
  cases('/profile').filter(
    ([next], i) => REPRESENTATIVE.includes(next) || DROPPED.some((c) => next === `/${c}/evil.example`) || i % 2 === FORMS.indexOf(form),
  );

async function fillLogin(page: Page, email: string) {
  await page.getByLabel(m.fields.email).fill(email);
  await page.getByLabel(m.fields.password, { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: m.login.submit, exact: true }).click();
}

async function fillSignup(page: Page, email: string) {
  await page.getByLabel(m.fields.email).fill(email);
  await page.getByLabel(m.fields.password, { exact: true }).fill(PASSWORD);
  await page.getByLabel(m.fields.confirmPassword).fill(PASSWORD);
  await page.getByRole('button', { name: m.signup.submit }).click();
}

/** Opens `form` with ?next= and checks the visitor lands on `landing` with no page between. */
async function expectLanding(page: Page, navigations: string[], start: string, landing: string, act?: () => Promise<void>) {
  navigations.length = 0;
  await page.goto(start, { waitUntil: 'commit' });
  const opened = page.url();
  const target = new URL(landing, opened).href;
  await act?.();
  await expect(page).toHaveURL(target);
  expect(navigations).toEqual([opened, target]);
}

for (const form of FORMS) {
  test.describe(`the way back from ${form}`, () => {
    // About 25 pages, each 3-7 s on two loaded cores (signed in; the signed-out tests sign in 4 times).
    test.setTimeout(600_000);

    test('a signed-in visitor is sent on to this site only, never back to a form', async ({ page }) => {
      await failGoogleApis(page.context());
      await speak(page, 'en');
      const email = uniqueEmail('next-in');
      await createAccount(email, PASSWORD);
      await page.goto('/login');
      await fillLogin(page, email);
      await expect(page).toHaveURL('/profile');
      const navigations = recordNavigations(page);
      for (const [next, landing] of signedInCasesOf(form)) {
        await test.step(JSON.stringify(next), () => expectLanding(page, navigations, `${form}?next=${encodeURIComponent(next)}`, landing));
      }
      // Another language falls back to its own profile.
      await expectLanding(page, navigations, `/ar${form}?next=${encodeURIComponent('/\t/evil.example')}`, '/ar/profile');
    });

    test(`a visitor who ${form === '/login' ? 'logs in' : 'signs up'} there is sent on to this site only, never back to a form`, async ({
      browser,
    }) => {
      const every = new Map(cases('/profile'));
      for (const next of REPRESENTATIVE) {
        const landing = every.get(next)!;
        await test.step(JSON.stringify(next), async () => {
          // A fresh browser profile each time: signed out again.
          const context = await browser.newContext();
          await failGoogleApis(context);
          const page = await context.newPage();
          await speak(page, 'en');
          const email = uniqueEmail('next-out');
          if (form === '/login') await createAccount(email, PASSWORD);
          const navigations = recordNavigations(page);
          await expectLanding(page, navigations, `${form}?next=${encodeURIComponent(next)}`, landing, () =>
            form === '/login' ? fillLogin(page, email) : fillSignup(page, email),
          );
          await context.close();
        });
      }
    });
  });
}
