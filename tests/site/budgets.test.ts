import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BEFORE_CURRENCIES, BUDGETS, pageWeight } from '../../scripts/lib/page-weight.ts';
import { DIST } from '../support/dist.ts';

/** The quick byte-budget check per page type (DESIGN 3); `npm run bench` measures the rest. */
const CONTENT_PAGES = ['faq', 'terms-conditions', 'privacy-policy', 'legal-notice', 'support', 'install-esim'];

/** Whether a page's scripts contain Firebase Auth (its API host is in every build of the SDK). */
const loadsFirebase = (page: string) =>
  pageWeight(DIST, join(DIST, `${page}.html`)).scripts.some((s) =>
    readFileSync(join(DIST, s), 'utf8').includes('identitytoolkit.googleapis.com'),
  );

describe('Firebase only where accounts are', () => {
  it.each(['index', 'store', 'package/de', 'faq', 'support', 'terms-conditions', 'ar/install-esim', '404'])(
    '%s loads no Firebase code',
    (page) => {
      expect(loadsFirebase(page)).toBe(false);
    },
  );
  it.each(['login', 'signup', 'profile', 'ar/checkout'])('%s does', (page) => {
    expect(loadsFirebase(page)).toBe(true);
  });
});

describe('byte budgets', () => {
  for (const lang of ['', 'ar/']) {
    it.each(CONTENT_PAGES)(`${lang}%s ships at most 10 KB of JavaScript (brotli)`, (page) => {
      const weight = pageWeight(DIST, join(DIST, `${lang}${page}.html`));
      expect(weight.js.brotli).toBeGreaterThan(0);
      expect(weight.js.brotli).toBeLessThanOrEqual(BUDGETS.contentPageJsBrotli);
      // Content pages load no framework: no React on pages that do not need it.
      expect(weight.scripts.some((s) => /react|client\./.test(s))).toBe(false);
    });
  }

  // Every other page type on a first visit, cookie banner included (it is plain script).
  it.each(['index', 'store', 'package/de', 'package/europe', 'ar/store', 'ja/package/global', '404', 'offline'])(
    '%s ships at most 70 KB of JavaScript (brotli)',
    (page) => {
      expect(pageWeight(DIST, join(DIST, `${page}.html`)).js.brotli).toBeLessThanOrEqual(BUDGETS.firstVisitJsBrotli);
    },
  );

  // Account pages carry Firebase: the login page's budget holds for all of them. /chat is one since
  // it has the support form (issue 32), which lets a signed-in buyer pick their order or eSIM.
  it.each(['login', 'signup', 'ar/login', 'profile', 'ar/profile', 'checkout', 'chat', 'ar/chat'])(
    '%s ships at most 120 KB of JavaScript (brotli)',
    (page) => {
      expect(pageWeight(DIST, join(DIST, `${page}.html`)).js.brotli).toBeLessThanOrEqual(BUDGETS.loginPageJsBrotli);
    },
  );

  // A package page is a first visit's page (DESIGN 3), and currencies (issue 34) add at most 2 KB to it.
  it.each(Object.entries(BEFORE_CURRENCIES.packagePageJs))(
    '%s ships at most 70 KB of JavaScript, and at most 2 KB more than before currencies (%i B brotli)',
    (page, before) => {
      const js = pageWeight(DIST, join(DIST, `${page}.html`)).js.brotli;
      expect(js).toBeLessThanOrEqual(BUDGETS.firstVisitJsBrotli);
      expect(js).toBeLessThanOrEqual(before + BUDGETS.currenciesGrowthBrotli);
    },
  );

  it.each(Object.entries(BEFORE_CURRENCIES.storePageHtml))(
    '%s HTML is at most 2 KB larger than before currencies (%i B brotli)',
    (page, before) => {
      expect(pageWeight(DIST, join(DIST, `${page}.html`)).html.brotli).toBeLessThanOrEqual(before + BUDGETS.currenciesGrowthBrotli);
    },
  );

  it.each(['package/de', 'package/global', 'ar/package/global', 'ja/package/europe'])('%s HTML is at most 25 KB (brotli)', (page) => {
    expect(pageWeight(DIST, join(DIST, `${page}.html`)).html.brotli).toBeLessThanOrEqual(BUDGETS.packagePageHtmlBrotli);
  });
});
