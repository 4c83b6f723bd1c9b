import { expect, type Browser, type Page, type TestInfo } from '@playwright/test';
import { createAccount, uniqueEmail } from './auth-support.ts';
import { PASSWORD } from './shop-support.ts';
import { speak } from './support.ts';

/** The back office's people in browser tests (ops.spec.ts, support-requests.spec.ts): staff accounts and their own browser. */
export const AUTH_EMULATOR = 'http://127.0.0.1:9099';

/** One call of the Auth emulator's admin API (the owner's bearer token the emulator accepts). */
export const emulator = (call: string, body: object) =>
  fetch(`${AUTH_EMULATOR}/identitytoolkit.googleapis.com/v1/projects/demo-esim/${call}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer owner' },
    body: JSON.stringify(body),
  });

/** A staff account with the role claim, as `npm run ops:grant` sets it (Accounts.setRole). */
export async function staff(role: 'support' | 'admin'): Promise<string> {
  const email = uniqueEmail(`ops-${role}`);
  await createAccount(email, PASSWORD, { emailVerified: true });
  const found = (await (await emulator('accounts:lookup', { email: [email] })).json()) as { users: Array<{ localId: string }> };
  const updated = await emulator('accounts:update', { localId: found.users[0]!.localId, customAttributes: JSON.stringify({ role }) });
  expect(updated.status).toBe(200);
  return email;
}

/** A second browser for the operator, set up as the test's own (no service worker, the cookie banner answered). */
export async function operatorPage(browser: Browser, testInfo: TestInfo, lang: string): Promise<Page> {
  const { baseURL, storageState, viewport } = testInfo.project.use;
  const context = await browser.newContext({
    baseURL: baseURL!,
    storageState: storageState!,
    viewport: viewport ?? null,
    serviceWorkers: 'block',
  });
  const page = await context.newPage();
  await speak(page, lang);
  return page;
}
