import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSmtpStandIn, type SmtpStandIn } from './server.ts';

let smtp: SmtpStandIn;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'smtp-stand-in-'));
  smtp = await startSmtpStandIn({ dir });
});
afterAll(async () => {
  await smtp.close();
  await rm(dir, { recursive: true, force: true });
});

it('hands a waiting test the message that arrives after it started waiting, sent without a login', async () => {
  const waiting = smtp.waitFor((m) => m.subject === 'Later');
  const transport = createTransport(smtp.url);
  await transport.sendMail({ from: 'shop@example.com', to: ['a@example.com', 'b@example.com'], subject: 'Later', text: 'Grüße, مرحبا' });
  transport.close();
  const message = await waiting;
  expect(message).toMatchObject({ from: 'shop@example.com', to: ['a@example.com', 'b@example.com'], text: 'Grüße, مرحبا' });
  expect(await readdir(dir)).toContain(message.file.slice(dir.length + 1));
});
