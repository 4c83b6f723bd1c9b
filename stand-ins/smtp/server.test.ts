import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpStandIn, type SmtpStandIn, type SmtpStandInOptions } from './server.ts';

let smtp: SmtpStandIn;
let dir: string;
const started: SmtpStandIn[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'smtp-stand-in-'));
  smtp = await startSmtpStandIn({ dir });
});
afterAll(async () => {
  await Promise.all([smtp, ...started].map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

it('hands a waiting test the message that arrives after it started waiting, sent without a login', async () => {
  const waiting = smtp.waitFor((m) => m.subject === 'Later');
  const transport = createTransport(smtp.url);
  await transport.sendMail({ from: 'shop@example.com', to: ['a@example.com', 'b@example.com'], subject: 'Later', text: 'Grüße, مرحبا' });
  transport.close();
  const message = await waiting;
  expect(message).toMatchObject({
    from: 'shop@example.com',
    to: ['a@example.com', 'b@example.com'],
    text: 'Grüße, مرحبا',
    secure: false,
    user: undefined,
  });
  expect(await readdir(dir)).toContain(message.file.slice(dir.length + 1));
});

describe('as a production relay: TLS, a required login, refusals, down', () => {
  const login = { user: 'shop', pass: 'Relay-Pa55word' };
  const start = async (options: SmtpStandInOptions) => {
    const standIn = await startSmtpStandIn({ dir, ...options });
    started.push(standIn);
    return standIn;
  };
  /** Sends one message with plain nodemailer options (not the shop's mailer): the error, or the info. */
  async function send(standIn: SmtpStandIn, options: SMTPTransport.Options, to: string | string[] = 'buyer@example.com') {
    const transport = createTransport({ host: '127.0.0.1', port: standIn.port, ...options });
    try {
      return await transport.sendMail({ from: 'orders@shop.example', to, subject: 'Probe', text: 'Hello' });
    } catch (error) {
      return error as Error & { responseCode?: number; response?: string; code?: string };
    } finally {
      transport.close();
    }
  }
  const reply = (result: unknown) => (result as { response?: string }).response;

  it('STARTTLS: refuses mail (530) and the login (538) until the connection is encrypted, then takes both', async () => {
    const standIn = await start({ tls: 'starttls', auth: login });
    expect(standIn.ca).toContain('BEGIN CERTIFICATE');
    expect(reply(await send(standIn, { ignoreTLS: true }))).toBe('530 5.7.0 Must issue a STARTTLS command first');
    expect(reply(await send(standIn, { ignoreTLS: true, auth: login }))).toMatch(/^538 /);
    // The certificate names localhost as well as 127.0.0.1.
    await send(standIn, { requireTLS: true, auth: login, tls: { ca: standIn.ca, servername: 'localhost' } });
    expect(standIn.messages).toMatchObject([{ secure: true, user: 'shop', to: ['buyer@example.com'] }]);
  });

  it('implicit TLS: TLS from the first byte, with the same certificate rules', async () => {
    const standIn = await start({ tls: 'implicit' });
    const untrusted = await send(standIn, { secure: true });
    expect(untrusted).toBeInstanceOf(Error);
    expect(String(untrusted)).toMatch(/self-signed certificate/);
    await send(standIn, { secure: true, tls: { ca: standIn.ca } });
    expect(standIn.messages).toMatchObject([{ secure: true, user: undefined }]);
  });

  it('AUTH when configured: no mail without a login (530), a wrong password refused with 535', async () => {
    const standIn = await start({ tls: 'starttls', auth: login });
    const tls = { requireTLS: true, tls: { ca: standIn.ca } };
    expect(reply(await send(standIn, tls))).toBe('530 5.7.0 Authentication required');
    const wrong = await send(standIn, { ...tls, auth: { ...login, pass: 'wrong' } });
    expect(wrong).toMatchObject({ code: 'EAUTH', responseCode: 535 });
    expect(reply(wrong)).toBe('535 5.7.8 Authentication credentials invalid');
    expect(await send(standIn, { ...tls, auth: { user: 'someone', pass: login.pass } })).toMatchObject({ responseCode: 535 });
    expect(standIn.messages).toHaveLength(0);
  });

  it('refuses the recipients it is told to with 550 and takes the others', async () => {
    const standIn = await start({ refuseRecipients: ['Gone@Example.com'] });
    const info = (await send(standIn, {}, ['gone@example.com', 'here@example.com'])) as SMTPTransport.SentMessageInfo;
    expect(info.accepted).toEqual(['here@example.com']);
    expect(info.rejected).toEqual(['gone@example.com']);
    expect(info.rejectedErrors?.[0]).toMatchObject({ responseCode: 550 });
    expect(reply(info.rejectedErrors?.[0])).toBe('550 5.1.1 Mailbox unavailable: gone@example.com');
    expect(standIn.messages).toMatchObject([{ to: ['here@example.com'] }]);
    expect(await send(standIn, {}, 'gone@example.com')).toMatchObject({ code: 'EENVELOPE', responseCode: 550 });
  });

  it('while down, turns every connection away with 421; back up, takes mail again', async () => {
    const standIn = await start({});
    standIn.setDown(true);
    const refused = await send(standIn, {});
    expect(refused).toMatchObject({ responseCode: 421 });
    expect(String(refused)).toContain('421 Service not available');
    standIn.setDown(false);
    await send(standIn, {});
    expect(standIn.messages).toHaveLength(1);
  });
});
