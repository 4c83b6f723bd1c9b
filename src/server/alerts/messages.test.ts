import { describe, expect, it } from 'vitest';
import { ALERT_KINDS } from '../../contract/shop-api.ts';
import { LOCALE_CODES } from '../../i18n/locales.ts';
import { alertTexts, type AlertFacts } from './messages.ts';

const GB = 2 ** 30;
/** 85 % of 3 GB used, the plan ending on 25 November at 14:05 UTC. */
const facts: AlertFacts = { usedBytes: 0.85 * 3 * GB, totalBytes: 3 * GB, expiresAt: '2026-11-25T14:05:00Z' };

describe('the alerts’ texts', () => {
  it('say in English what is left of what, until when in UTC, and what to do', () => {
    const low = alertTexts({ kind: 'data_80', lang: 'en', destinationName: 'Germany', facts });
    expect(low.subject).toBe('Germany: 85% of your data used');
    expect(low.body).toContain('461 MB left');
    expect(low.body).toContain('3 GB');
    expect(low.body).toContain('November 25, 2026 at 2:05 PM UTC');
    expect(low.pushTitle).toBe('Germany: data running low');
    expect(low.pushBody).toBe('461 MB of 3 GB left. Tap to top up.');
    expect(low.action).toBe('Top up');

    const lastDay = alertTexts({ kind: 'validity_1_day', lang: 'en', destinationName: 'Germany', facts });
    expect(lastDay.pushBody).toBe('Ends Nov 25, 2:05 PM UTC. 461 MB of data left. Tap to top up.');

    const usedUp = alertTexts({ kind: 'data_used_up', lang: 'en', destinationName: 'Germany', facts: { ...facts, usedBytes: 3 * GB } });
    expect(usedUp.body).toMatch(/To get back online, connect to Wi-Fi and top up/);

    const ready = alertTexts({ kind: 'esim_ready', lang: 'en', destinationName: 'Germany', facts });
    expect(ready.pushTitle).toBe('Your eSIM for Germany is ready');
    expect(ready.action).toBe('Open My eSIMs');
  });

  it('write figures and dates as German and Arabic do', () => {
    const de = alertTexts({ kind: 'data_80', lang: 'de', destinationName: 'Deutschland', facts });
    expect(de.subject).toBe('Deutschland: 85\u00a0% deines Datenvolumens verbraucht');
    expect(de.pushBody).toMatch(/^Noch 461\sMB von 3\sGB\. Tippe zum Aufladen\.$/);
    expect(de.body).toContain('25. November 2026');
    expect(de.body).toContain('UTC');
    const ar = alertTexts({ kind: 'validity_1_day', lang: 'ar', destinationName: 'ألمانيا', facts });
    expect(ar.pushTitle).toBe('ألمانيا: يتبقى يوم واحد');
    expect(ar.body).toContain('نوفمبر');
    expect(ar.action).toBe('إعادة الشحن');
  });

  it('floor the share used to a whole percent, never rounding up to a threshold not reached', () => {
    const percent = (usedBytes: number) =>
      alertTexts({ kind: 'data_80', lang: 'en', destinationName: 'Japan', facts: { ...facts, usedBytes, totalBytes: 100 } }).subject;
    expect(percent(79.6)).toBe('Japan: 79% of your data used');
    expect(percent(29)).toBe('Japan: 29% of your data used');
    expect(percent(100)).toBe('Japan: 100% of your data used');
  });

  it('never mention an end the eSIM does not have, and never show more used than the plan holds', () => {
    const texts = alertTexts({
      kind: 'data_used_up',
      lang: 'en',
      destinationName: 'Japan',
      facts: { usedBytes: 4 * GB, totalBytes: 3 * GB, expiresAt: null },
    });
    expect(texts.body).not.toContain('valid until');
    expect(texts.pushBody).toBe('All 3 GB used. On Wi-Fi, tap to top up and get back online.');
    expect(alertTexts({ kind: 'data_80', lang: 'en', destinationName: 'Japan', facts: { ...facts, usedBytes: 4 * GB } }).body).toContain(
      '0 MB left',
    );
  });

  it('have every text, in every language, of its own words, naming the destination', () => {
    for (const kind of ALERT_KINDS) {
      const english = alertTexts({ kind, lang: 'en', destinationName: 'Zed', facts });
      for (const lang of LOCALE_CODES.filter((code) => code !== 'en')) {
        const texts = alertTexts({ kind, lang, destinationName: 'Zed', facts });
        for (const key of ['subject', 'heading', 'body', 'pushTitle', 'pushBody', 'action'] as const) {
          expect(texts[key], `${lang} ${kind} ${key}`).not.toBe(english[key]);
          expect(texts[key], `${lang} ${kind} ${key}`).not.toMatch(/{{|}}/);
        }
        if (kind !== 'esim_ready') expect(texts.pushTitle, `${lang} ${kind}`).toContain('Zed');
        expect(texts.body, `${lang} ${kind}`).toContain('Zed');
      }
    }
  });
});
