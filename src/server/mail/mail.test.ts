import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import jsQR from 'jsqr';
import { parse } from 'node-html-parser';
import { PNG } from 'pngjs';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpStandIn, type SmtpStandIn } from '../../../stand-ins/smtp/server.ts';
import { formatPrice } from '../../lib/format.ts';
import type { Locale } from '../../i18n/locales.ts';
import { TERMS_VERSION } from '../../contract/shop-api.ts';
import { simpleParser } from 'mailparser';
import { ALERT_KINDS } from '../../contract/shop-api.ts';
import { LOCALE_CODES } from '../../i18n/locales.ts';
import { unsubscribeToken, unsubscribeUrl } from '../alerts/unsubscribe-token.ts';
import { alertEmail, type AlertEmailInput } from '../alerts/alert-email.ts';
import { createMailer, MailError } from './mailer.ts';
import { orderEmail, type MailEsim } from './order-email.ts';
import type { MailOrder } from './order-summary.ts';
import { cartRefundEmail, refundEmail } from './refund-email.ts';

// The order e-mail sent through the real mailer over loopback SMTP to the stand-in, read back as the buyer's mail program would.

const SMDP = 'rsp.example-smdp.com';
const MATCHING_ID = 'K2-1A2B3C-4D5E6F';
const LPA = `LPA:1$${SMDP}$${MATCHING_ID}`;
const esim: MailEsim = { activationCode: LPA, smdpAddress: SMDP, matchingId: MATCHING_ID };
const total = { amountMinor: 1999, currency: 'EUR' };
const LINKS = { myEsimsUrl: 'https://shop.example/my-esim', profileUrl: 'https://shop.example/profile' };

const order = (destinationName: string, number: string): MailOrder => ({
  number,
  createdAt: new Date('2026-11-20T09:30:00Z'),
  total,
  plan: { metadata: { dataAmount: { value: 3, unit: 'GB' } }, validity: 7, validityUnit: 'day', supportedCountries: ['DE'] },
  destinationName,
  termsVersion: TERMS_VERSION,
  consentedAt: new Date('2026-11-20T09:29:00Z'),
});

/** What the buyer must read in each language (written here, not taken from the locale files). */
const EXPECTED = {
  en: {
    destination: 'Germany',
    subject: 'Your eSIM for Germany: order {n}',
    qrAlt: 'QR code to install your eSIM',
    waiver: 'you lose your right of withdrawal once delivery has begun (§ 356(5) BGB)',
    price: '€19.99',
    date: 'November 20, 2026',
  },
  de: {
    destination: 'Deutschland',
    subject: 'Deine eSIM für Deutschland: Bestellung {n}',
    qrAlt: 'QR-Code zur Installation deiner eSIM',
    waiver: 'dass du mit Beginn der Bereitstellung dein Widerrufsrecht verlierst (§ 356 Abs. 5 BGB)',
    price: '19,99\u00a0€',
    date: '20. November 2026',
  },
  ar: {
    destination: 'ألمانيا',
    subject: 'شريحة eSIM الخاصة بك لـ ألمانيا: الطلب {n}',
    qrAlt: 'رمز QR لتثبيت شريحة eSIM الخاصة بك',
    waiver: 'وأقررت بأنك تفقد حقك في الانسحاب بمجرد بدء التسليم',
    price: formatPrice(total, 'ar'),
    date: 'نوفمبر 2026',
  },
} satisfies Partial<Record<Locale, Record<string, string>>>;

let smtp: SmtpStandIn;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mail-test-'));
  smtp = await startSmtpStandIn({ dir });
});
afterAll(async () => {
  await smtp.close();
  await rm(dir, { recursive: true, force: true });
});

const mailerFor = (url: string) => createMailer({ smtpUrl: url, from: 'Travel eSIM <orders@shop.example>' });

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the order e-mail, sent over SMTP', () => {
  for (const lang of ['en', 'de', 'ar'] as const) {
    it(`arrives once in ${lang}, with the order, the price, the waiver and the eSIM's codes, QR code and iPhone link`, async () => {
      const expected = EXPECTED[lang];
      const number = `ES-2026-00012${['en', 'de', 'ar'].indexOf(lang)}`;
      const to = `buyer-${lang}@example.com`;
      const email = await orderEmail({
        lang,
        order: order(expected.destination, number),
        esim,
        installGuideUrl: `https://shop.example/${lang}/install/`,
        ...LINKS,
        siteName: 'Travel eSIM',
      });
      // Credentials in the URL, as in production: the stand-in takes any login.
      const mailer = mailerFor(smtp.url.replace('smtp://', 'smtp://shop:secret@'));
      await mailer.send({ ...email, to });
      mailer.close();

      const received = smtp.messages.filter((m) => m.to.includes(to));
      expect(received).toHaveLength(1);
      const [message] = received as [(typeof received)[0]];
      expect(message.from).toBe('orders@shop.example');
      expect(message.subject).toBe(expected.subject.replace('{n}', number));

      for (const part of [message.text, message.html]) {
        expect(part).toContain(number);
        expect(part).toContain(expected.price);
        expect(part).toContain(expected.date);
        expect(part).toContain(expected.waiver);
        expect(part).toContain(TERMS_VERSION);
        expect(part).toContain(LPA);
        expect(part).toContain(SMDP);
        expect(part).toContain(MATCHING_ID);
        expect(part).toContain(`https://shop.example/${lang}/install/`);
      }

      // The iPhone one-tap link carries the LPA string URL-encoded, in both parts.
      const iphoneLink = `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=LPA%3A1%24${SMDP}%24${MATCHING_ID}`;
      expect(message.text).toContain(iphoneLink);
      const html = parse(message.html);
      const link = html.querySelectorAll('a').find((a) => a.getAttribute('href')?.startsWith('https://esimsetup.apple.com/'));
      expect(link?.getAttribute('href')).toBe(iphoneLink);
      expect(new URL(link!.getAttribute('href')!).searchParams.get('carddata')).toBe(LPA);
      expect(message.text + message.html).toContain('iOS 17.5');

      // The QR code is an inline image part whose PNG reads back as the LPA string.
      const img = html.querySelector('img')!;
      expect(img.getAttribute('alt')).toBe(expected.qrAlt);
      const cid = img.getAttribute('src')!.replace(/^cid:/, '');
      expect(img.getAttribute('src')).toMatch(/^cid:/);
      const qr = message.attachments.find((a) => a.cid === cid);
      expect(qr?.contentType).toBe('image/png');
      const png = PNG.sync.read(qr!.content);
      expect(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data).toBe(LPA);
      // Nothing is loaded from outside: the only image is the cid part.
      expect(html.querySelectorAll('[src]').map((e) => e.getAttribute('src'))).toEqual([`cid:${cid}`]);

      // Right to left in Arabic, with the codes left to right inside it.
      expect(html.querySelector('html')?.getAttribute('dir')).toBe(lang === 'ar' ? 'rtl' : 'ltr');
      expect(html.querySelector('html')?.getAttribute('lang')).toBe(lang);
      const codes = html.querySelectorAll('[dir="ltr"]').map((e) => e.textContent);
      expect(codes).toEqual(expect.arrayContaining([SMDP, MATCHING_ID, LPA, number]));

      // Transactional: no unsubscribe, it always goes.
      expect(message.raw).not.toMatch(/^List-Unsubscribe/im);

      // A developer can read what was sent.
      expect(existsSync(message.file)).toBe(true);
      expect(message.file.startsWith(dir)).toBe(true);
      expect(readFileSync(message.file, 'utf8')).toBe(message.raw);
    });
  }

  it('to an address not verified: no install codes, no QR code, the way to My eSIMs and to confirm it, in every language (issue 29, defect 6)', async () => {
    const english = await orderEmail({
      lang: 'en',
      order: order('Germany', 'ES-2026-000140'),
      esim: undefined,
      installGuideUrl: 'https://shop.example/install/',
      ...LINKS,
      siteName: 'Travel eSIM',
    });
    for (const lang of LOCALE_CODES) {
      const to = `unverified-${lang}@example.com`;
      const email = await orderEmail({
        lang,
        order: order('Germany', 'ES-2026-000140'),
        esim: undefined,
        installGuideUrl: 'https://shop.example/install/',
        ...LINKS,
        siteName: 'Travel eSIM',
      });
      const mailer = mailerFor(smtp.url);
      await mailer.send({ ...email, to });
      mailer.close();
      const [message] = smtp.messages.filter((m) => m.to.includes(to));
      expect(message!.attachments, lang).toEqual([]);
      for (const part of [message!.text, message!.html]) {
        for (const code of ['LPA:', SMDP, MATCHING_ID, 'esimsetup.apple.com']) expect(part, lang).not.toContain(code);
        expect(part).toContain(LINKS.myEsimsUrl);
        expect(part).toContain(LINKS.profileUrl);
        expect(part).toContain('ES-2026-000140');
      }
      // Its own words in each language, not the English ones.
      if (lang !== 'en')
        expect(
          email.text.split('\n').filter((line) => english.text.includes(line) && line.length > 60),
          lang,
        ).toEqual([]);
    }
  });

  it('tells why when the mail server refuses the connection, without the activation code or the message', async () => {
    const email = await orderEmail({
      lang: 'en',
      order: order('Germany', 'ES-2026-000130'),
      esim,
      installGuideUrl: 'https://shop.example/install/',
      ...LINKS,
      siteName: 'Travel eSIM',
    });
    const port = await closedPort();
    const error = await mailerFor(`smtp://shop:secret@127.0.0.1:${port}`)
      .send({ ...email, to: 'buyer@example.com' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailError);
    const { message } = error as MailError;
    expect(message).toContain('mailer.send');
    expect(message).toContain(`127.0.0.1:${port}`);
    expect(message).toContain('ECONNREFUSED');
    for (const secret of [LPA, MATCHING_ID, 'secret', email.subject]) expect(message).not.toContain(secret);
  });

  it('keeps the activation code out of the error when the server rejects the message and quotes it', async () => {
    // A real SMTP server that refuses every message, quoting its content back in the reply.
    const rejecting = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, _session, callback) {
        let body = '';
        stream.on('data', (chunk: Buffer) => (body += chunk.toString()));
        stream.on('end', () => callback(Object.assign(new Error(`Rejected: ${body.match(/LPA:1\$\S+/)?.[0]}`), { responseCode: 554 })));
      },
    });
    await new Promise<void>((resolve) => rejecting.listen(0, '127.0.0.1', resolve));
    try {
      const email = await orderEmail({
        lang: 'en',
        order: order('Germany', 'ES-2026-000131'),
        esim,
        installGuideUrl: 'https://shop.example/install/',
        ...LINKS,
        siteName: 'Travel eSIM',
      });
      const error = (await mailerFor(`smtp://127.0.0.1:${(rejecting.server.address() as { port: number }).port}`)
        .send({ ...email, to: 'buyer@example.com' })
        .catch((e: unknown) => e)) as MailError;
      expect(error).toBeInstanceOf(MailError);
      expect(error.responseCode).toBe(554);
      expect(error.message).toContain('Rejected');
      expect(error.message).not.toContain(MATCHING_ID);
    } finally {
      await new Promise<void>((resolve) => rejecting.close(() => resolve()));
    }
  });
});

describe('over TLS with a login, as in production', () => {
  const login = { user: 'shop', pass: 'Relay-Pa55word' };
  const buyerEmail = (number: string) =>
    orderEmail({
      lang: 'en',
      order: order('Germany', number),
      esim,
      installGuideUrl: 'https://shop.example/install/',
      ...LINKS,
      siteName: 'Travel eSIM',
    });
  const withLogin = (url: string, pass = login.pass) => url.replace(/^(smtps?:\/\/)/, `$1${login.user}:${encodeURIComponent(pass)}@`);
  let relays: SmtpStandIn[] = [];
  const relay = async (options: Parameters<typeof startSmtpStandIn>[0]) => {
    const started = await startSmtpStandIn({ dir, ...options });
    relays.push(started);
    return started;
  };
  afterAll(async () => {
    await Promise.all(relays.map((r) => r.close()));
    relays = [];
  });

  it('delivers over STARTTLS (?tls=required) after logging in, trusting the relay through ca', async () => {
    const starttls = await relay({ tls: 'starttls', auth: login });
    expect(starttls.url).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+\?tls=required$/);
    const mailer = createMailer({ smtpUrl: withLogin(starttls.url), from: 'Travel eSIM <orders@shop.example>', ca: starttls.ca });
    await mailer.send({ ...(await buyerEmail('ES-2026-000150')), to: 'tls-buyer@example.com' });
    mailer.close();
    const message = await starttls.waitFor((m) => m.to.includes('tls-buyer@example.com'));
    expect(message).toMatchObject({ secure: true, user: 'shop' });
    expect(message.text).toContain(LPA);
  });

  it('delivers over implicit TLS (smtps://) after logging in', async () => {
    const implicit = await relay({ tls: 'implicit', auth: login });
    expect(implicit.url).toMatch(/^smtps:\/\/127\.0\.0\.1:\d+$/);
    const mailer = createMailer({ smtpUrl: withLogin(implicit.url), from: 'Travel eSIM <orders@shop.example>', ca: implicit.ca });
    await mailer.send({ ...(await buyerEmail('ES-2026-000151')), to: 'tls-buyer@example.com' });
    mailer.close();
    expect(await implicit.waitFor((m) => m.to.includes('tls-buyer@example.com'))).toMatchObject({ secure: true, user: 'shop' });
  });

  it('does not trust a certificate it was not given', async () => {
    const implicit = await relay({ tls: 'implicit', auth: login });
    const error = (await createMailer({ smtpUrl: withLogin(implicit.url), from: 'Travel eSIM <orders@shop.example>' })
      .send({ ...(await buyerEmail('ES-2026-000152')), to: 'buyer@example.com' })
      .catch((e: unknown) => e)) as MailError;
    expect(error).toBeInstanceOf(MailError);
    expect(error.message).toMatch(/certificate/i);
    expect(implicit.messages).toHaveLength(0);
  });

  it('fails on a wrong password with the SMTP code, and never shows a password', async () => {
    const starttls = await relay({ tls: 'starttls', auth: login });
    const wrong = 'Wr0ng-Pa55word';
    const error = (await createMailer({
      smtpUrl: withLogin(starttls.url, wrong),
      from: 'Travel eSIM <orders@shop.example>',
      ca: starttls.ca,
    })
      .send({ ...(await buyerEmail('ES-2026-000153')), to: 'buyer@example.com' })
      .catch((e: unknown) => e)) as MailError;
    expect(error).toBeInstanceOf(MailError);
    expect(error.code).toBe('EAUTH');
    expect(error.responseCode).toBe(535);
    expect(error.message).toContain('EAUTH 535');
    const shown = `${error.message}\n${inspect(error)}\n${JSON.stringify(error)}`;
    for (const secret of [wrong, login.pass, Buffer.from(`\0${login.user}\0${wrong}`).toString('base64'), MATCHING_ID])
      expect(shown).not.toContain(secret);
    expect(starttls.messages).toHaveLength(0);
  });

  it('fails clearly when the relay refuses the recipient', async () => {
    const starttls = await relay({ tls: 'starttls', auth: login, refuseRecipients: ['gone@example.com'] });
    const error = (await createMailer({ smtpUrl: withLogin(starttls.url), from: 'Travel eSIM <orders@shop.example>', ca: starttls.ca })
      .send({ ...(await buyerEmail('ES-2026-000154')), to: 'gone@example.com' })
      .catch((e: unknown) => e)) as MailError;
    expect(error).toBeInstanceOf(MailError);
    expect(error.code).toBe('EENVELOPE');
    expect(error.responseCode).toBe(550);
    expect(error.message).toMatch(/EENVELOPE 550\).*recipients were rejected.*550/);
    expect(error.message).not.toContain(MATCHING_ID);
    expect(starttls.messages).toHaveLength(0);
  });

  it('fails with a MailError while the relay is down (fulfilment tries again later), and delivers once it is back', async () => {
    const starttls = await relay({ tls: 'starttls', auth: login });
    const mailer = createMailer({ smtpUrl: withLogin(starttls.url), from: 'Travel eSIM <orders@shop.example>', ca: starttls.ca });
    const email = { ...(await buyerEmail('ES-2026-000155')), to: 'later@example.com' };
    starttls.setDown(true);
    const error = (await mailer.send(email).catch((e: unknown) => e)) as MailError;
    // fulfilment.ts records any error that is not a partner's refusal and retries with backoff.
    expect(error).toBeInstanceOf(MailError);
    expect(error.responseCode).toBe(421);
    expect(error.message).toContain('421');
    expect(starttls.messages).toHaveLength(0);
    starttls.setDown(false);
    await mailer.send(email);
    mailer.close();
    expect(await starttls.waitFor((m) => m.to.includes('later@example.com'))).toMatchObject({ secure: true });
  });

  it('sends nothing, not even the login, to a relay that does not offer STARTTLS when the URL requires it', async () => {
    // The plain stand-in, as a relay whose STARTTLS was stripped on the way would look.
    const error = (await createMailer({ smtpUrl: `${withLogin(smtp.url)}?tls=required`, from: 'Travel eSIM <orders@shop.example>' })
      .send({ ...(await buyerEmail('ES-2026-000156')), to: 'stripped@example.com' })
      .catch((e: unknown) => e)) as MailError;
    expect(error).toBeInstanceOf(MailError);
    expect(error.message).toMatch(/STARTTLS/);
    expect(smtp.messages.filter((m) => m.to.includes('stripped@example.com'))).toHaveLength(0);
  });

  it('refuses a plain smtp:// URL to any host but this machine, and a relay without a login, without showing the password', () => {
    const create = (smtpUrl: string) => () => createMailer({ smtpUrl, from: 'Travel eSIM <orders@shop.example>' });
    for (const plain of [
      'smtp://shop:Relay-Pa55word@smtp.example.com:587',
      'smtp://shop:Relay-Pa55word@smtp.example.com',
      'smtp://shop:Relay-Pa55word@10.0.0.25:25',
      'smtp://shop:Relay-Pa55word@127.0.0.2:25',
    ]) {
      expect(create(plain)).toThrow(/no plain text to .*smtps:\/\/.*\?tls=required/);
      expect(create(plain)).not.toThrow(/Pa55word/);
    }
    expect(create('smtps://smtp.example.com')).toThrow('needs a login');
    expect(create('smtp://smtp.example.com:587?tls=required')).toThrow('needs a login');
    expect(create('smtp://shop:Relay-Pa55word@smtp.example.com:587?tls=maybe')).toThrow('?tls=required');
    for (const fine of [
      'smtps://shop:Relay-Pa55word@smtp.example.com',
      'smtp://shop:Relay-Pa55word@smtp.example.com:587?tls=required',
      'smtp://127.0.0.1:2525',
      'smtp://localhost:2525',
      'smtp://[::1]:2525',
    ]) {
      expect(create(fine)).not.toThrow();
    }
  });
});

describe('the refund e-mail', () => {
  it('says in German how much is refunded and within how many business days', async () => {
    const to = 'refund-de@example.com';
    const mailer = mailerFor(smtp.url);
    await mailer.send({
      ...refundEmail({ lang: 'de', order: { number: 'ES-2026-000140', total }, reason: 'requested', siteName: 'Travel eSIM' }),
      to,
    });
    mailer.close();
    const message = await smtp.waitFor((m) => m.to.includes(to));
    expect(message.subject).toBe('Erstattung für Bestellung ES-2026-000140');
    for (const part of [message.text, message.html]) {
      expect(part).toContain('Erstatteter Betrag');
      expect(part).toContain('19,99\u00a0€');
      expect(part).toContain('5 bis 7 Werktagen');
      expect(part).toContain('ungenutzte eSIM storniert');
    }
  });

  it("a cart delivered in part: each undelivered eSIM at its own price and their total, in each currency's minor units", () => {
    const plan = {
      metadata: { dataAmount: { value: 3, unit: 'GB' as const } },
      validity: 15,
      validityUnit: 'day' as const,
      supportedCountries: ['JP'],
    };
    const item = (number: string, amountMinor: number, currency: string) => ({
      number,
      total: { amountMinor, currency },
      destinationName: 'Japan',
      plan,
    });
    for (const [currency, amounts, each, sum] of [
      ['EUR', [499, 1299], '12,99\u00a0€', '17,98\u00a0€'],
      // No minor unit: 1,200 yen is 1200, not 12.00.
      ['JPY', [1200, 800], '800\u00a0¥', '2.000\u00a0¥'],
      // Three decimals: 1.250 + 3.500 dinars.
      ['KWD', [1250, 3500], '3,500\u00a0KWD', '4,750\u00a0KWD'],
    ] as const) {
      const { text, subject } = cartRefundEmail({
        lang: 'de',
        refunded: [item('ES-2026-000150', amounts[0], currency), item('ES-2026-000151', amounts[1], currency)],
        arrived: [item('ES-2026-000152', amounts[0], currency)],
        siteName: 'Travel eSIM',
      });
      expect(subject).toBe('Erstattung für Bestellung ES-2026-000150');
      expect(text).toContain(each);
      expect(text).toContain(sum);
      for (const number of ['ES-2026-000150', 'ES-2026-000151', 'ES-2026-000152']) expect(text).toContain(number);
    }
  });

  it('apologises in Arabic, right to left, when the eSIM could not be delivered', () => {
    const { html, text, subject } = refundEmail({
      lang: 'ar',
      order: { number: 'ES-2026-000141', total },
      reason: 'not_delivered',
      siteName: 'Travel eSIM',
    });
    expect(subject).toBe('استرداد المبلغ للطلب ES-2026-000141');
    expect(text).toContain('لم نتمكن من تسليم شريحة eSIM');
    expect(parse(html).querySelector('html')?.getAttribute('dir')).toBe('rtl');
  });
});

describe('the alert e-mail', () => {
  const GB = 2 ** 30;
  // As long as a real one: a header line this long is folded, and must unfold to the same URL.
  const oneClickUrl = unsubscribeUrl('https://api.shop.example/api', unsubscribeToken('key', 'x'.repeat(28), 'data_80'), 'de');
  const alert = (overrides: Partial<AlertEmailInput> = {}): AlertEmailInput => ({
    kind: 'data_80',
    lang: 'en',
    destinationName: 'Germany',
    facts: { usedBytes: 0.85 * 3 * GB, totalBytes: 3 * GB, expiresAt: '2026-11-25T14:05:00Z' },
    topUpUrl: 'https://shop.example/checkout?topUp=esim-1',
    myEsimsUrl: 'https://shop.example/my-esim',
    unsubscribeUrl: oneClickUrl,
    unsubscribePageUrl: 'https://shop.example/unsubscribe?token=abc.def.ghi',
    preferencesUrl: 'https://shop.example/profile#alerts',
    siteName: 'Travel eSIM',
    ...overrides,
  });

  it('arrives with what is left, until when, a top-up button and one-click unsubscribe headers (RFC 8058)', async () => {
    const to = 'alert-en@example.com';
    const mailer = mailerFor(smtp.url);
    await mailer.send({ ...alertEmail(alert()), to });
    mailer.close();
    const message = await smtp.waitFor((m) => m.to.includes(to));
    expect(message.subject).toBe('Germany: 85% of your data used');
    const { headerLines } = await simpleParser(message.raw);
    const header = (name: string) =>
      headerLines
        .find((line) => line.key === name)
        ?.line.replace(/\r?\n[ \t]+/g, '')
        .replace(/^[^:]+:\s*/, '');
    expect(header('list-unsubscribe')).toBe(`<${oneClickUrl}>`);
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    for (const part of [message.text, message.html]) {
      expect(part).toContain('461 MB left');
      expect(part).toContain('November 25, 2026 at 2:05 PM UTC');
      expect(part).toContain('Manage your alerts');
      expect(part).toContain('https://shop.example/profile#alerts');
      expect(part).toContain('Travel eSIM');
    }
    const links = parse(message.html)
      .querySelectorAll('a')
      .map((a) => [a.textContent, a.getAttribute('href')]);
    expect(links).toEqual([
      ['Top up', 'https://shop.example/checkout?topUp=esim-1'],
      ['Open My eSIMs', 'https://shop.example/my-esim'],
      ['Manage your alerts', 'https://shop.example/profile#alerts'],
      // People get the page that asks first; only the header's URL unsubscribes at once.
      ['Unsubscribe from these alerts', 'https://shop.example/unsubscribe?token=abc.def.ghi'],
    ]);
    expect(message.text).toContain('Unsubscribe from these alerts:\nhttps://shop.example/unsubscribe?token=abc.def.ghi');
  });

  it('offers My eSIMs instead when the eSIM cannot be topped up', () => {
    const { html } = alertEmail(alert({ kind: 'data_used_up', topUpUrl: undefined }));
    const hrefs = parse(html)
      .querySelectorAll('a')
      .map((a) => a.getAttribute('href'));
    expect(hrefs).not.toContain('https://shop.example/checkout?topUp=esim-1');
    expect(hrefs[0]).toBe('https://shop.example/my-esim');
  });

  it('reads right to left in Arabic', () => {
    const { html, text, subject } = alertEmail(alert({ lang: 'ar', kind: 'validity_1_day', destinationName: 'ألمانيا' }));
    expect(subject).toBe('ألمانيا: تنتهي شريحة eSIM الخاصة بك خلال يوم واحد');
    expect(parse(html).querySelector('html')?.getAttribute('dir')).toBe('rtl');
    expect(text).toContain('إلغاء الاشتراك في هذه التنبيهات');
  });

  it('renders every kind in every language, in that language, with the same links', () => {
    for (const lang of LOCALE_CODES)
      for (const kind of ALERT_KINDS.filter((k) => k !== 'esim_ready')) {
        const email = alertEmail(alert({ lang, kind, destinationName: 'Zed' }));
        expect(email.subject, `${lang} ${kind}`).toContain('Zed');
        expect(parse(email.html).querySelector('html')?.getAttribute('lang')).toBe(lang);
        expect(email.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
        for (const url of ['https://shop.example/unsubscribe?token=abc.def.ghi', 'https://shop.example/profile#alerts']) {
          expect(email.text).toContain(url);
        }
        if (lang !== 'en')
          for (const english of ['You get this e-mail', 'Manage your alerts', 'Unsubscribe from these alerts', 'Top up'])
            expect(email.text, `${lang} ${kind}`).not.toContain(english);
      }
  });
});
