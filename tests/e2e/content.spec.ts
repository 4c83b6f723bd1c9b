import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import enHome from '../../locales/en/home.json' with { type: 'json' };
import enFaq from '../../locales/en/faq.json' with { type: 'json' };
import { PROVIDER } from '../../src/config/provider.ts';
import { LEGAL_LAST_UPDATED } from '../../src/config/constants.ts';
import { messages, speak } from './support.ts';

const legal = (lang: string) => messages(lang, 'legal');

test.describe('device compatibility dialog', () => {
  test('opens, filters, shows the empty state, keeps focus inside, closes on Esc and returns focus', async ({ page }) => {
    await speak(page, 'en');
    await page.goto('/');
    const opener = page.getByRole('button', { name: enHome.devices.open });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: enHome.devices.dialogTitle });
    await expect(dialog).toBeVisible();
    const search = dialog.getByRole('searchbox', { name: enHome.devices.searchLabel });
    await expect(search).toBeFocused();

    await search.fill('PIXEL 9');
    const models = dialog.locator('li[data-search]:visible');
    await expect(models).toHaveText(['Pixel 9', 'Pixel 9 Pro', 'Pixel 9 Pro XL', 'Pixel 9 Pro Fold', 'Pixel 9a']);
    await expect(dialog.getByRole('heading', { name: 'Google' })).toBeVisible();
    await expect(dialog.getByRole('heading', { name: 'Apple' })).toBeHidden();
    await search.fill('iphone 15 pro');
    await expect(models).toHaveText(['iPhone 15 Pro', 'iPhone 15 Pro Max']);

    await search.fill('nokia 3310');
    await expect(models).toHaveCount(0);
    await expect(dialog.getByText(enHome.devices.noDevices).first()).toBeVisible();

    // Focus stays in the modal dialog, however often Tab is pressed.
    for (const key of ['Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
      await page.keyboard.press(key);
      expect(await page.evaluate(() => !!document.activeElement?.closest('dialog')), key).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(opener).toBeFocused();

    await opener.click();
    await dialog.getByRole('button', { name: enHome.devices.close }).click();
    await expect(dialog).toBeHidden();
    await expect(opener).toBeFocused();
  });
});

test.describe('FAQ', () => {
  test('an accordion of about 17 questions that works by keyboard', async ({ page }) => {
    await speak(page, 'en');
    await page.goto('/faq');
    await expect(page.getByRole('heading', { name: enFaq.generalHeading })).toBeVisible();
    const questions = page.locator('[data-accordion] button[aria-expanded]');
    await expect(questions).toHaveCount(enFaq.items.length);
    expect(enFaq.items.length).toBeGreaterThanOrEqual(15);

    const first = questions.first();
    const answer = page.getByRole('region', { name: enFaq.items[0]!.question });
    await expect(answer).toBeHidden();
    await first.focus();
    await page.keyboard.press('Enter');
    await expect(first).toHaveAttribute('aria-expanded', 'true');
    await expect(answer).toBeVisible();
    await expect(answer).toHaveText(enFaq.items[0]!.answer);
    await page.keyboard.press('Space');
    await expect(first).toHaveAttribute('aria-expanded', 'false');
    await expect(answer).toBeHidden();
    await page.keyboard.press('Tab');
    await expect(questions.nth(1)).toBeFocused();
  });

  test('states the activation and refund figures, agreeing with the terms', async ({ page }) => {
    await speak(page, 'en');
    await page.goto('/faq');
    await page.getByRole('button', { name: 'How long does activation take?' }).click();
    await expect(page.getByText(/usually activates 5 to 15 minutes .* up to 24 hours/)).toBeVisible();
    await page.getByRole('button', { name: 'Can I get a refund?' }).click();
    await expect(
      page.getByText(
        /within 30 days of purchase.* 5 to 7 business days\. Once the eSIM has been activated, it can no longer be refunded\./,
      ),
    ).toBeVisible();
  });

  test('carries FAQPage structured data, and shows every answer without JavaScript', async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto('/de/faq');
    const data = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent())!);
    expect(data['@type']).toBe('FAQPage');
    expect(data.mainEntity).toHaveLength(enFaq.items.length);
    expect(data.mainEntity[0].name).toBe(
      await page
        .locator('[data-accordion] button')
        .first()
        .textContent()
        .then((s) => s!.trim()),
    );
    await expect(page.locator('[data-accordion] section[aria-labelledby]').last()).toBeVisible();
    await context.close();
  });
});

test.describe('legal pages', () => {
  /** Presses the page's back button, labelled in `lang`, and checks where it leads. */
  async function backLandsOn(page: Page, lang: string, url: string) {
    await page.getByRole('link', { name: legal(lang).back }).click();
    await expect(page).toHaveURL(url);
  }

  for (const lang of ['en', 'de', 'ar'] as const) {
    const prefix = lang === 'en' ? '' : `/${lang}`;
    for (const [route, doc] of [
      ['/terms-conditions', 'terms'],
      ['/privacy-policy', 'privacy'],
      ['/legal-notice', 'imprint'],
    ] as const) {
      test(`${prefix}${route} in ${lang}: header card, its last-updated month, every section`, async ({ page }) => {
        const text = legal(lang);
        await speak(page, lang);
        await page.goto(`${prefix}${route}`);
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(text[doc].title);
        await expect(page.getByText(text[doc].subtitle)).toBeVisible();
        const lastUpdated = new Intl.DateTimeFormat(lang, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
          new Date(LEGAL_LAST_UPDATED),
        );
        await expect(page.locator('[data-last-updated]')).toContainText(lastUpdated);
        await expect(page.locator('article h2')).toHaveText(text[doc].sections.map((s) => s.heading));
        await expect(page.locator('html')).toHaveAttribute('dir', lang === 'ar' ? 'rtl' : 'ltr');
        await expect(page.getByRole('navigation').last()).toBeVisible();
      });
    }
  }

  test('the back button goes one step back in history', async ({ page }) => {
    await speak(page, 'en');
    await page.goto('/support');
    await page.getByRole('link', { name: 'Privacy Policy' }).click();
    await expect(page).toHaveURL('/privacy-policy');
    // Until its script has run, the button is a plain link home (it works without JavaScript).
    await page.waitForLoadState('load');
    await backLandsOn(page, 'en', '/support');
  });

  test('the back button goes one step back to a page of ours whose address was typed', async ({ page }) => {
    await speak(page, 'en');
    // page.goto sends no referrer, as when a traveller types the address.
    await page.goto('/store');
    await page.goto('/terms-conditions');
    await backLandsOn(page, 'en', '/store');
  });

  test('the back button goes home when the previous page belongs to another site', async ({ page }) => {
    await speak(page, 'ar');
    // Another port is another origin: it stands for another site.
    const otherSite = createServer((_, response) => response.end('<!doctype html><title>Elsewhere</title>'));
    await new Promise<void>((resolve) => otherSite.listen(0, '127.0.0.1', resolve));
    await page.goto(`http://127.0.0.1:${(otherSite.address() as AddressInfo).port}/`);
    otherSite.close();
    await page.goto('/ar/privacy-policy');
    await backLandsOn(page, 'ar', '/ar/');
  });

  test('the back button goes home when there is no history', async ({ page }) => {
    await speak(page, 'de');
    await page.goto('/de/legal-notice');
    await backLandsOn(page, 'de', '/de/');
  });

  test('the provider details come from the configuration, placeholders filled in', async ({ page }) => {
    await speak(page, 'en');
    await page.goto('/legal-notice');
    await expect(page.locator('article')).toContainText('[Provider name], sole proprietor');
    await expect(page.locator('article')).toContainText('Berlin');
    await expect(page.locator('article')).not.toContainText('{{');
  });

  for (const lang of ['en', 'de', 'ar'] as const) {
    test(`the legal notice links the e-mail address and names a second fast way to reach us (${lang})`, async ({ page }) => {
      await speak(page, lang);
      await page.goto(lang === 'en' ? '/legal-notice' : `/${lang}/legal-notice`);
      const contact = page
        .locator('article section')
        .filter({ has: page.getByRole('heading', { name: legal(lang).imprint.sections[1]!.heading }) });
      await expect(contact.getByRole('link', { name: PROVIDER.supportEmail })).toHaveAttribute('href', `mailto:${PROVIDER.supportEmail}`);
      await expect(contact).toContainText(PROVIDER.phone);
    });
  }
});

test.describe('support, contact and install guide', () => {
  test('support offers e-mail and the help and legal pages', async ({ page }) => {
    await speak(page, 'en');
    await page.goto('/support');
    await expect(page.getByRole('link', { name: /@/ })).toHaveAttribute('href', /^mailto:/);
    for (const [name, url] of <const>[
      ['FAQ', '/faq'],
      ['Terms and Conditions', '/terms-conditions'],
      ['Privacy Policy', '/privacy-policy'],
      ['Legal Notice', '/legal-notice'],
    ]) {
      await expect(page.getByRole('main').getByRole('link', { name, exact: true })).toHaveAttribute('href', url);
    }
  });

  test('/chat says how to reach support', async ({ page }) => {
    await speak(page, 'ja');
    await page.goto('/ja/chat');
    await expect(page.getByRole('main').locator('a[href^="mailto:"]').first()).toBeVisible();
  });

  test('/install-esim guides iPhone and Android users', async ({ page }) => {
    await speak(page, 'en');
    await page.goto('/install-esim');
    await expect(page.getByRole('heading', { name: 'iPhone' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Android' })).toBeVisible();
    await expect(page.getByText(/Data Roaming/).first()).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Troubleshooting' })).toBeVisible();
  });
});
