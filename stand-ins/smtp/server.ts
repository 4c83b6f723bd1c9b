import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { simpleParser } from 'mailparser';
import { generate } from 'selfsigned';
import { SMTPServer, type SMTPServerEnvelope } from 'smtp-server';
import { receivedLog, type ReceivingStandIn } from '../received-log.ts';

/**
 * A local SMTP capture (dev and tests only; nothing under src/ imports it): it keeps each message
 * in memory for tests and writes it as an .eml file a developer can open in any mail program.
 * By default it speaks plain text on loopback and takes any login (`npm start` needs no setup);
 * a test can ask for what a production relay does instead: STARTTLS or implicit TLS with a
 * certificate made at start, a required login, refused recipients, and being down.
 */

export const DEFAULT_MAIL_DIR = resolve(import.meta.dirname, '../../reports/mail');

export interface CapturedAttachment {
  filename: string | undefined;
  contentType: string;
  /** The Content-ID without angle brackets, as the HTML's cid: reference names it. */
  cid: string | undefined;
  content: Buffer;
}

export interface CapturedMessage {
  /** The SMTP envelope: MAIL FROM and every RCPT TO. */
  from: string;
  to: string[];
  subject: string;
  text: string;
  /** With its cid: references kept as sent. */
  html: string;
  attachments: CapturedAttachment[];
  /** The message as received (RFC 5322). */
  raw: string;
  /** The .eml file it was written to. */
  file: string;
  /** Whether the message came over TLS (implicit, or after STARTTLS). */
  secure: boolean;
  /** The user name it was sent under, when the client logged in. */
  user: string | undefined;
}

export interface SmtpStandIn extends ReceivingStandIn<CapturedMessage> {
  /**
   * For SMTP_URL, without credentials: smtp://127.0.0.1:<port>, smtp://127.0.0.1:<port>?tls=required
   * (STARTTLS) or smtps://127.0.0.1:<port> (implicit TLS).
   */
  url: string;
  port: number;
  /** With TLS: the self-signed certificate (PEM) the client must trust (the mailer's `ca`). */
  ca: string | undefined;
  /** While down, every connection is turned away with 421 before the greeting. */
  setDown(down: boolean): void;
}

export interface SmtpStandInOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Where the .eml files go: reports/mail/ by default. */
  dir?: string;
  /** Called with each message once captured. */
  onMessage?: (message: CapturedMessage) => void;
  /**
   * 'starttls': plain connection upgraded with STARTTLS (port 587 style), 'implicit': TLS from the
   * first byte (port 465 style); either way MAIL is refused until the connection is encrypted.
   * Unset: plain text only (loopback, the default for `npm start`).
   */
  tls?: 'starttls' | 'implicit';
  /** Set: a login is required, and only this user name and password are accepted. Unset: any login or none. */
  auth?: { user: string; pass: string };
  /** Recipients (RCPT TO addresses, compared case-insensitively) the relay refuses with 550. */
  refuseRecipients?: string[];
}

/** A 'relay' error with an SMTP reply code, as smtp-server sends it. */
const reply = (responseCode: number, text: string) => Object.assign(new Error(text), { responseCode });

/** A certificate for 127.0.0.1, ::1 and localhost, valid for a day, made when the stand-in starts. */
async function selfSignedCertificate(): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 24 * 60 * 60 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

export async function startSmtpStandIn(options: SmtpStandInOptions = {}): Promise<SmtpStandIn> {
  const dir = options.dir ?? DEFAULT_MAIL_DIR;
  await mkdir(dir, { recursive: true });
  const received = receivedLog<CapturedMessage>('SMTP stand-in');

  const { tls, auth } = options;
  const refused = new Set((options.refuseRecipients ?? []).map((address) => address.toLowerCase()));
  const certificate = tls ? await selfSignedCertificate() : undefined;
  let down = false;

  const server = new SMTPServer({
    logger: false,
    // RFC 2034 and RFC 3463: replies carry enhanced status codes (535 5.7.8, 550 5.1.1), as real relays' do.
    hideENHANCEDSTATUSCODES: false,
    ...(certificate
      ? {
          // RFC 8314 section 3.3: implicit TLS, the TLS handshake before the greeting. RFC 3207: STARTTLS
          // is offered in the EHLO reply, answered 220, and the client says EHLO again over TLS.
          secure: tls === 'implicit',
          key: certificate.key,
          cert: certificate.cert,
          // RFC 4954 section 4 (and RFC 3207 section 6): no password in the clear; AUTH before STARTTLS
          // is answered 538 (RFC 4954 section 6: encryption required for the mechanism).
          allowInsecureAuth: false,
        }
      : // Plain text on loopback: no certificate to make.
        { disabledCommands: ['STARTTLS'], allowInsecureAuth: true }),
    // Checked in onMailFrom below, so that each refusal carries its own rule and reply.
    authOptional: true,
    onConnect(_session, callback) {
      // RFC 5321 sections 3.1 and 4.2.3: a server that cannot serve answers the connection with
      // 421 (service not available, closing transmission channel), a transient (4yz) reply: try later.
      if (down) return callback(reply(421, 'Service not available, closing transmission channel'));
      callback();
    },
    onAuth(login, _session, callback) {
      if (!auth) return callback(null, { user: login.username });
      // RFC 4954 section 6: 535 5.7.8, authentication credentials invalid (no hint which one was wrong).
      if (login.username !== auth.user || login.password !== auth.pass) return callback(reply(535, 'Authentication credentials invalid'));
      callback(null, { user: login.username });
    },
    onMailFrom(_address, session, callback) {
      // RFC 3207 section 4: a server that requires TLS answers 530 to any command but NOOP, EHLO,
      // STARTTLS or QUIT until the client has issued STARTTLS.
      if (tls && !session.secure) return callback(reply(530, 'Must issue a STARTTLS command first'));
      // RFC 4954 section 6: 530 5.7.0, authentication required (by this server's policy).
      if (auth && !session.user) return callback(reply(530, 'Authentication required'));
      callback();
    },
    onRcptTo(address, _session, callback) {
      // RFC 5321 section 4.2.3 (and RFC 3463 5.1.1): 550, requested action not taken: mailbox unavailable.
      if (refused.has(address.address.toLowerCase())) return callback(reply(550, `Mailbox unavailable: ${address.address}`));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        void capture(raw, session.envelope, {
          secure: session.secure,
          user: typeof session.user === 'string' ? session.user : undefined,
        }).then(() => callback(), callback);
      });
    },
  });

  async function capture(raw: Buffer, envelope: SMTPServerEnvelope, connection: { secure: boolean; user: string | undefined }) {
    const parsed = await simpleParser(raw, { keepCidLinks: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const file = join(dir, `${stamp}-${randomBytes(3).toString('hex')}.eml`);
    await writeFile(file, raw);
    const message: CapturedMessage = {
      from: envelope.mailFrom ? envelope.mailFrom.address : '',
      to: envelope.rcptTo.map((r) => r.address),
      subject: parsed.subject ?? '',
      text: parsed.text ?? '',
      html: typeof parsed.html === 'string' ? parsed.html : '',
      attachments: parsed.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, cid: a.cid, content: a.content })),
      raw: raw.toString('utf8'),
      file,
      ...connection,
    };
    received.add(message);
    options.onMessage?.(message);
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolveListen());
  });
  // A client that drops its connection is the client's problem, not a reason to stop capturing.
  server.on('error', () => {});
  const port = (server.server.address() as AddressInfo).port;

  return {
    url:
      tls === 'implicit'
        ? `smtps://127.0.0.1:${port}`
        : tls === 'starttls'
          ? `smtp://127.0.0.1:${port}?tls=required`
          : `smtp://127.0.0.1:${port}`,
    port,
    ca: certificate?.cert,
    setDown(value) {
      down = value;
    },
    messages: received.entries,
    waitFor: received.waitFor,
    close: () => new Promise<void>((resolveClose) => server.close(() => resolveClose())),
  };
}
