import { expect, test, type Page } from '@playwright/test';
import { fill } from '../../src/i18n/fill.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { deliveredEsimAt, partnerControl } from './shop-support.ts';
import { axeViolations, messages } from './support.ts';

/**
 * Issue 22: My eSIMs follows the eSIM on the phone while the page is open, against the real parts
 * (the shop API, the eSIM Access stand-in sending its SMDP_EVENT and ESIM_STATUS notifications):
 * each step shows without a reload, with the help for an eSIM downloaded and not installed for 10
 * minutes (the browser's clock moved on, not waited for) and for one deleted from the phone.
 */
for (const lang of ['en', 'ar'] as const) {
  const { myEsim: m } = messages(lang, 'esims');
  const myEsims = localizePath(lang, '/my-esim');
  const stepLine = (page: Page) => page.locator('[data-install-step]');
  const says = (step: keyof typeof m.installSteps) => fill(m.installStep, { step: m.installSteps[step] });

  test(`My eSIMs shows each install step live, and the help a step calls for (${lang})`, async ({ page }) => {
    test.setTimeout(120_000);
    const { order } = await deliveredEsimAt(page, lang, myEsims);
    // The browser's clock, moved on below instead of waiting 10 minutes.
    await page.clock.install();
    await page.goto(myEsims);
    await expect(stepLine(page)).toHaveText(says('released'), { timeout: 15_000 });
    const loads: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) loads.push(frame.url());
    });

    await partnerControl('install', { transactionId: order, stage: 'DOWNLOAD' });
    await expect(stepLine(page)).toHaveText(says('downloaded'), { timeout: 15_000 });
    await expect(page.locator('[data-install-help]')).toHaveCount(0);
    // Ten minutes later, still only downloaded: where to look on the phone.
    await page.clock.fastForward('10:30');
    await expect(page.locator('[data-install-help="downloaded"]')).toHaveText(m.helpDownloaded, { timeout: 15_000 });
    expect(await axeViolations(page)).toEqual([]);

    await partnerControl('install', { transactionId: order, stage: 'INSTALLATION' });
    await expect(stepLine(page)).toHaveText(says('installed'), { timeout: 15_000 });
    await expect(page.locator('[data-install-help]')).toHaveCount(0);
    await partnerControl('install', { transactionId: order, stage: 'ENABLED' });
    await expect(stepLine(page)).toHaveText(says('enabled'), { timeout: 15_000 });
    await partnerControl('install', { transactionId: order, stage: 'IN_USE' });
    await expect(stepLine(page)).toHaveText(says('in_use'), { timeout: 15_000 });
    // All of it without a reload.
    expect(loads).toEqual([]);

    // Deleted from the phone: it cannot be installed again, support can help. (In use, the page
    // no longer polls: the step shows on the next visit.)
    await partnerControl('install', { transactionId: order, stage: 'DELETED' });
    await expect
      .poll(
        async () => {
          await page.reload();
          return stepLine(page).textContent({ timeout: 10_000 });
        },
        { timeout: 20_000 },
      )
      .toBe(says('deleted'));
    const help = page.locator('[data-install-help="deleted"]');
    await expect(help).toContainText(m.helpDeleted);
    await expect(help.getByRole('link', { name: m.contactSupport })).toHaveAttribute('href', localizePath(lang, '/support'));
    expect(await axeViolations(page)).toEqual([]);
  });
}
