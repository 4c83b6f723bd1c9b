import { describe, expect, it } from 'vitest';
import { PushMessage } from '../../contract/shop-api.ts';
import { alertTexts } from './messages.ts';
import { pushDelivery, pushMessage } from './push-message.ts';

/** The push of an alert (issue 23): in the device's language, with a link into the top-up or My eSIMs, one per eSIM and kind. */
const ORDER_ID = '0b7e3f5a-8f0e-4c55-9a38-1d2b3c4d5e6f';
const facts = { usedBytes: 0.85 * 2 ** 30, totalBytes: 2 ** 30, expiresAt: '2026-07-11T10:00:00.000Z' };
const subject = { orderId: ORDER_ID, topUpSupported: true, facts };

describe('pushMessage', () => {
  it('is in the device’s language, names the destination in it, and opens the top-up checkout of that eSIM in it', () => {
    const de = pushMessage('data_80', subject, 'de', 'Japan');
    expect(PushMessage.parse(de)).toEqual(de);
    const texts = alertTexts({ kind: 'data_80', lang: 'de', destinationName: 'Japan', facts });
    expect(de).toEqual({
      kind: 'data_80',
      title: texts.pushTitle,
      body: texts.pushBody,
      url: `/de/checkout?topUp=${ORDER_ID}`,
      tag: `data_80:${ORDER_ID}`,
      lang: 'de',
    });
    expect(`${de.title} ${de.body}`).toContain('Japan');
    const en = pushMessage('data_80', subject, 'en', 'Japan');
    expect(en.url).toBe(`/checkout?topUp=${ORDER_ID}`);
    expect(en.title).not.toBe(de.title);
    const ar = pushMessage('validity_1_day', subject, 'ar', 'اليابان');
    expect(ar).toMatchObject({ lang: 'ar', url: `/ar/checkout?topUp=${ORDER_ID}`, tag: `validity_1_day:${ORDER_ID}` });
    expect(`${ar.title} ${ar.body}`).toMatch(/[\u0600-\u06ff]/);
  });

  it('opens My eSIMs for "ready", and for a plan that cannot be topped up', () => {
    expect(pushMessage('esim_ready', subject, 'fr', 'Japon').url).toBe('/fr/my-esim');
    expect(pushMessage('data_used_up', { ...subject, topUpSupported: false }, 'en', 'Japan').url).toBe('/my-esim');
  });

  it('wakes the phone at once, and is kept a day, for used up and the last day; the others can wait', () => {
    expect(pushDelivery('data_used_up')).toEqual({ ttlSeconds: 86_400, urgency: 'high' });
    expect(pushDelivery('validity_1_day')).toEqual({ ttlSeconds: 86_400, urgency: 'high' });
    expect(pushDelivery('data_80').urgency).toBe('normal');
    expect(pushDelivery('esim_ready').urgency).toBe('normal');
  });
});
