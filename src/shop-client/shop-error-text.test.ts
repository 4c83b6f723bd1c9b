import { describe, expect, it } from 'vitest';
import { ShopError } from './shop-client.ts';
import { shopErrorMessages } from './shop-error-messages.ts';
import { loadErrorKind, shopErrorText, tooManyRequestsText } from './shop-error-text.ts';

describe('the text of a reached per-user limit (429)', () => {
  it('says the wait as each language says a time from now, in seconds and then in minutes', () => {
    expect(tooManyRequestsText(shopErrorMessages('en'), 'en', 45)).toBe('Too many attempts. Please try again in 45 seconds.');
    expect(tooManyRequestsText(shopErrorMessages('en'), 'en', 1)).toBe('Too many attempts. Please try again in 1 second.');
    expect(tooManyRequestsText(shopErrorMessages('en'), 'en', 600)).toBe('Too many attempts. Please try again in 10 minutes.');
    expect(tooManyRequestsText(shopErrorMessages('de'), 'de', 45)).toBe('Zu viele Versuche. Bitte versuche es in 45 Sekunden erneut.');
    expect(tooManyRequestsText(shopErrorMessages('ru'), 'ru', 21)).toBe('Слишком много попыток. Повторите попытку через 21 секунду.');
    expect(tooManyRequestsText(shopErrorMessages('ja'), 'ja', 30)).toBe('試行回数が多すぎます。30 秒後にもう一度お試しください。');
  });

  it('without a wait, asks to wait a moment; other islands get it through shopErrorText', () => {
    expect(tooManyRequestsText(shopErrorMessages('en'), 'en', undefined)).toBe('Too many attempts. Please wait a moment and try again.');
    expect(shopErrorText(new ShopError('tooManyRequests', undefined, 50), shopErrorMessages('fr'), 'fr')).toBe(
      'Trop de tentatives. Veuillez réessayer dans 50 secondes.',
    );
    expect(shopErrorText(new ShopError('tooManyRequests'), shopErrorMessages('fr'))).toBe(shopErrorMessages('fr').errors.tooManyRequests);
  });
});

describe('the text of a blocked account (403 account_blocked)', () => {
  it('says in each language that the account is blocked and to contact support, for the refund button and every island', () => {
    const blocked = new ShopError('accountBlocked');
    expect(shopErrorText(blocked, shopErrorMessages('en'), 'en')).toBe(
      "Your account is blocked, so we can't take orders or refund requests from it. Nothing was charged. Please contact support.",
    );
    expect(shopErrorText(blocked, shopErrorMessages('de'))).toMatch(/^Dein Konto ist gesperrt/);
    expect(shopErrorText(blocked, shopErrorMessages('ar'))).toMatch(/^تم حظر حسابك/);
    // Not the generic server error.
    expect(shopErrorText(blocked, shopErrorMessages('fr'))).not.toBe(shopErrorMessages('fr').checkout.errors.server);
  });
});

describe('the message a failed load shows (order history, payment success)', () => {
  it('tells the network, sign-in and input errors apart and shows any other failure as the server error', () => {
    expect(loadErrorKind(new ShopError('network'))).toBe('network');
    expect(loadErrorKind(new ShopError('unauthorized'))).toBe('unauthorized');
    expect(loadErrorKind(new ShopError('badInput'))).toBe('badInput');
    expect(loadErrorKind(new ShopError('tooManyRequests'))).toBe('server');
    expect(loadErrorKind(new ShopError('notFound'))).toBe('server');
    expect(loadErrorKind(new TypeError('boom'))).toBe('server');
  });
});
