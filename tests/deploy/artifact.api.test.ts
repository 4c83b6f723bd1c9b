// The production artifact, validated here without Docker (issue 31; no base image can be pulled on
// this machine): built exactly as the Dockerfile says (its `npm ci` in a clean folder, its COPY
// lines with .dockerignore's exclusions, its CMD), then migrated by `npm run db:migrate` and run as
// two instances on one real PostgreSQL behind a small front, with production settings except the
// stand-in hosts (the preflight's test-only switch, which it reports). A buyer pays, receives the
// eSIM and gets a refund; the scheduler's reconcile and audit calls answer.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, matchesGlob, relative } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { signUp } from '../support/auth-accounts.ts';
import { onServer, serverDatabaseUrl } from '../support/databases.ts';
import { startEsimAccessStandIn, type EsimAccessStandIn } from '../../stand-ins/esim-access/server.ts';
import { startSmtpStandIn, type SmtpStandIn } from '../../stand-ins/smtp/server.ts';
import { startStripeStandIn, STAND_IN_WEBHOOK_SECRET, type StripeStandIn } from '../../stand-ins/stripe/server.ts';
import { startFront, type Front } from '../../scripts/lib/fault-run/front.ts';
import { standInEnv } from '../../scripts/lib/stand-in-env.ts';
import { STAND_IN_SWITCH } from '../../src/server/preflight.ts';
import { testCatalogue, orderRequest } from '../support/shop-api.ts';
import type { OrderView } from '../../src/contract/shop-api.ts';

const ROOT = join(import.meta.dirname, '../..');
const SITE = 'https://esim.example';
const TOKENS = { reconcile: 'artifact-reconcile-token', audit: 'artifact-audit-token', partnerWebhook: 'artifact-partner-token' };
const PARTNER_ACCOUNT = { accessCode: 'artifact-access-code', secretKey: 'artifact-secret-key' };

/** The Dockerfile as steps: the dependencies stage's install, the runtime stage's copies, the command. */
function readDockerfile() {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const install = lines.find((line) => line.startsWith('RUN npm ci'))?.slice('RUN '.length);
  const copies = lines
    .filter((line) => line.startsWith('COPY ') && !line.includes('--from='))
    .map((line) => line.split(/\s+/).slice(1))
    .map((parts) => ({ sources: parts.slice(0, -1), target: parts.at(-1)! }));
  const cmd = /^CMD (\[.*\])$/.exec(lines.findLast((line) => line.startsWith('CMD ')) ?? '')?.[1];
  if (!install || !cmd) throw new Error('The Dockerfile has no RUN npm ci or no CMD in exec form');
  return { install, copies, cmd: JSON.parse(cmd) as string[] };
}

/** .dockerignore's exclusions under the copied folders (`**` patterns; the file lists what is let in). */
const ignored = (() => {
  const patterns = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('**/'));
  return (path: string) => patterns.some((pattern) => matchesGlob(path, pattern));
})();

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path, base) : [relative(base, path)];
  });
}

/** Builds the artifact in a clean folder; answers the folder and how to start it. */
function buildArtifact(): { dir: string; start: string[] } {
  const { install, copies, cmd } = readDockerfile();
  const dir = mkdtempSync(join(tmpdir(), 'artifact-'));
  // Stage "dependencies": package.json and the lockfile, then the Dockerfile's own install command.
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(ROOT, file), join(dir, file));
  const installed = spawnSync(install, { cwd: dir, shell: true, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production' } });
  if (installed.status !== 0) throw new Error(`${install} failed:\n${installed.stderr}`);
  // Stage "runtime": each COPY from the build context, less what .dockerignore keeps out.
  for (const { sources, target } of copies) {
    for (const source of sources) {
      const from = join(ROOT, source);
      const to = sources.length > 1 || target.endsWith('/') ? join(dir, target, source.split('/').at(-1)!) : join(dir, target);
      cpSync(from, to, { recursive: true, filter: (path) => !ignored(relative(ROOT, path)) });
    }
  }
  // The image's command, with this run's Node 24 for `node`.
  return { dir, start: cmd.map((part, index) => (index === 0 && part === 'node' ? process.execPath : part)) };
}

interface Instance {
  url: string;
  output: () => string;
  exited: Promise<number | null>;
  stop(): void;
}

/** The image's command in the artifact, on a free port: resolves once it listens (or it exited). */
async function startInstance(dir: string, start: string[], env: Record<string, string>): Promise<Instance> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(start[0]!, start.slice(1), { cwd: dir, env: { PATH: process.env.PATH!, ...env, PORT: String(port) } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<number | null>((done) => child.on('close', done));
  const listening = new Promise<void>((done) => child.stdout.on('data', () => output.includes('listening') && done()));
  await Promise.race([listening, exited, new Promise((done) => setTimeout(done, 60_000))]);
  return { url: `http://127.0.0.1:${port}`, output: () => output, exited, stop: () => child.kill('SIGTERM') };
}

describe('the production artifact', () => {
  let artifact: { dir: string; start: string[] };
  let database: string;
  let stripe: StripeStandIn;
  let partner: EsimAccessStandIn;
  let smtp: SmtpStandIn;
  let front: Front;
  const instances: Instance[] = [];
  const mailDir = mkdtempSync(join(tmpdir(), 'artifact-mail-'));

  /** Production settings, except the stand-ins' hosts on loopback (allowed by the switch alone). */
  const productionEnv = (): Record<string, string> => ({
    NODE_ENV: 'production',
    [STAND_IN_SWITCH]: '1',
    DATABASE_URL: serverDatabaseUrl(database),
    SITE_URL: SITE,
    FIREBASE_PROJECT_ID: 'demo-esim',
    ...standInEnv({
      stripeUrl: stripe.url,
      partnerUrl: partner.url,
      partner: PARTNER_ACCOUNT,
      partnerWebhookToken: TOKENS.partnerWebhook,
      smtpUrl: smtp.url,
      authHost: inject('authEmulatorHost'),
    }),
    MAIL_FROM: 'Travel eSIM <orders@esim.example>',
    PROVIDER_ALERT_EMAIL: 'owner@esim.example',
    VAPID_PUBLIC_KEY: 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U',
    VAPID_PRIVATE_KEY: 'UUxI4O8-FbRouAevSmBQ6o18hgE4nSG3qwvJTfKc-ls',
    ALERTS_SECRET: 'artifact-alerts-secret-of-some-length',
    RECONCILE_TOKEN: TOKENS.reconcile,
    AUDIT_TOKEN: TOKENS.audit,
    TRUSTED_PROXIES: '1',
  });

  beforeAll(async () => {
    artifact = buildArtifact();
    database = `artifact_${Date.now()}`;
    await onServer(`CREATE DATABASE ${database}`);
    smtp = await startSmtpStandIn({ dir: mailDir });
    partner = await startEsimAccessStandIn({ ...PARTNER_ACCOUNT, allocationDelayMs: 300 });
    // The front is there before the instances: Stripe's and the partner's webhooks go through it.
    front = await startFront(() => instances.map((instance) => instance.url));
    stripe = await startStripeStandIn({ webhookSecret: STAND_IN_WEBHOOK_SECRET, webhookUrl: `${front.url}/api/webhooks/stripe` });
    partner.setWebhookUrl(`${front.url}/api/webhooks/partner/${TOKENS.partnerWebhook}`);
  }, 300_000);

  afterAll(async () => {
    for (const instance of instances) instance.stop();
    await Promise.all(instances.map((instance) => instance.exited));
    await front?.close();
    await Promise.all([stripe?.close(), partner?.close(), smtp?.close()]);
    if (database) await onServer(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    if (artifact) rmSync(artifact.dir, { recursive: true, force: true });
    rmSync(mailDir, { recursive: true, force: true });
  }, 60_000);

  it('holds the production packages and the API’s code only: no dev dependency, test, stand-in or bench code', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.entries(lock.packages).filter(([path, entry]) => path.startsWith('node_modules/') && entry.dev);
    expect(devOnly.length).toBeGreaterThan(100);
    expect(devOnly.map(([path]) => path).filter((path) => existsSync(join(artifact.dir, path)))).toEqual([]);
    // (typescript is there: an optional peer of i18next, which npm installs with it; the lockfile marks it devOptional, not dev.)
    for (const tool of ['astro', 'vitest', '@playwright/test', 'firebase-tools', 'node'])
      expect(existsSync(join(artifact.dir, 'node_modules', tool)), tool).toBe(false);
    // The API's packages are there.
    for (const needed of ['hono', 'pg', 'stripe', 'firebase-admin', 'nodemailer'])
      expect(existsSync(join(artifact.dir, 'node_modules', needed))).toBe(true);

    const code = filesUnder(artifact.dir).filter((path) => !path.startsWith('node_modules/'));
    expect(code).toContain('src/server/main.ts');
    expect(code.filter((path) => /(^|\/)(tests?|stand-ins|scripts|bench)\//.test(path) || /\.test\.ts$/.test(path))).toEqual([]);
    const imports = code
      .filter((path) => path.endsWith('.ts'))
      .flatMap((path) => [...readFileSync(join(artifact.dir, path), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => [path, m[1]!]))
      .filter(([, specifier]) => /(stand-ins|tests|scripts)\//.test(specifier!));
    expect(imports).toEqual([]);
  });

  it('refuses to start with a set-up that is not production’s, naming each problem', async () => {
    const { [STAND_IN_SWITCH]: _switch, DATABASE_URL: _db, TRUSTED_PROXIES: _proxies, AUDIT_TOKEN: _audit, ...rest } = productionEnv();
    const instance = await startInstance(artifact.dir, artifact.start, { ...rest, SMTP_URL: 'smtp://user:pass@mail.example.net:25' });
    expect(await instance.exited).toBe(1);
    const output = instance.output();
    expect(output).toContain('preflight: the shop API refuses to start');
    for (const named of [
      'DATABASE_URL is not set',
      'PGlite',
      'TRUSTED_PROXIES is not set',
      'AUDIT_TOKEN is not set',
      'FIREBASE_AUTH_EMULATOR_HOST is set',
      'STRIPE_API_URL is set',
      'ESIM_ACCESS_BASE_URL is set',
      'STRIPE_SECRET_KEY is not a live key',
      'no plain text to mail.example.net',
    ])
      expect(output).toContain(named);
    expect(output).not.toContain('listening');
  }, 90_000);

  it('refuses to serve on a database older than its code, naming the step to run', async () => {
    const instance = await startInstance(artifact.dir, artifact.start, productionEnv());
    expect(await instance.exited).toBe(1);
    expect(instance.output()).toMatch(/The database schema is older than this code: \d+ migration\(s\) not applied .*npm run db:migrate/);
  }, 90_000);

  it('npm run db:migrate brings the schema up to date, once', () => {
    const migrate = () =>
      spawnSync('npm', ['run', '--silent', 'db:migrate'], {
        cwd: artifact.dir,
        encoding: 'utf8',
        // npm runs the script with the first `node` on the PATH: this run's Node 24.
        env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, DATABASE_URL: serverDatabaseUrl(database) },
      });
    const first = migrate();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/db:migrate: applied 0001_orders\.sql, /);
    const again = migrate();
    expect(again.stdout).toContain('db:migrate: the schema is current');
  }, 120_000);

  it('two instances behind a front: a purchase, its eSIM by e-mail, a refund, and the scheduler’s calls', async () => {
    for (let n = 0; n < 2; n++) instances.push(await startInstance(artifact.dir, artifact.start, productionEnv()));
    for (const instance of instances) {
      expect(instance.output()).toContain('shop API listening');
      // The switch never passes unnoticed.
      expect(instance.output()).toContain(`preflight: ${STAND_IN_SWITCH}=1`);
    }
    const api = `${front.url}/api`;

    const buyer = await signUp();
    const call = async (path: string, init: { method?: string; body?: unknown; token?: string } = {}) => {
      const response = await fetch(`${api}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          Origin: SITE,
          ...(init.token && { Authorization: `Bearer ${init.token}` }),
          ...(init.body !== undefined && { 'Content-Type': 'application/json' }),
        },
        ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    const { PLAN } = testCatalogue();
    const placed = await call('/orders', { method: 'POST', token: buyer.idToken, body: orderRequest(PLAN) });
    expect(placed.status).toBe(201);
    const { order, checkoutUrl } = placed.body as { order: OrderView; checkoutUrl: string };
    const paid = await fetch(checkoutUrl, {
      method: 'POST',
      body: new URLSearchParams({ action: 'pay', card: '4242424242424242' }),
      redirect: 'manual',
    });
    expect(paid.status).toBe(303);

    // Delivered: the long-poll answers once the eSIM is there, and its codes arrive by e-mail.
    let delivered: OrderView | undefined;
    for (let tries = 0; tries < 20 && delivered?.state !== 'delivered'; tries++)
      delivered = (await call(`/orders/${order.id}?lang=de&waitMs=5000`, { token: buyer.idToken })).body as unknown as OrderView;
    expect(delivered?.state).toBe('delivered');
    const email = await smtp.waitFor((message) => message.to.includes(buyer.email), 20_000);
    expect(email.text).toContain('LPA:1$');

    // Refunded: never installed, so the buyer's refund goes through, at Stripe and at the partner.
    const refund = await call(`/esims/${order.esimId}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
    expect(refund.status).toBe(200);
    let state = '';
    for (let tries = 0; tries < 30 && state !== 'refunded'; tries++) {
      await new Promise((done) => setTimeout(done, 500));
      state = ((await call(`/orders/${order.id}?lang=de`, { token: buyer.idToken })).body as unknown as OrderView).state;
    }
    expect(state).toBe('refunded');

    // The scheduler's calls, with their bearer tokens (deploy/deploy.sh), and not without.
    const job = (path: string, token?: string) =>
      fetch(`${api}/jobs/${path}`, { method: 'POST', headers: token ? { Authorization: `Bearer ${token}` } : {} });
    expect((await job('reconcile')).status).toBe(404);
    const reconcile = await job('reconcile', TOKENS.reconcile);
    expect(reconcile.status).toBe(200);
    expect(await reconcile.json()).toMatchObject({ handled: expect.any(Number) });
    const audit = await job('audit', TOKENS.audit);
    expect(audit.status).toBe(200);
    expect(await audit.json()).toEqual({ checked: 1, findings: 0, emailed: false });
    // Something the audit must catch (a refunded order whose refund Stripe has not confirmed): the provider is e-mailed.
    const db = new pg.Client({ connectionString: serverDatabaseUrl(database) });
    await db.connect();
    await db.query(`UPDATE refunds SET status = 'pending' WHERE order_id = $1`, [order.id]);
    await db.end();
    const found = await job('audit', TOKENS.audit);
    expect(await found.json()).toMatchObject({ checked: 1, findings: expect.toSatisfy((n: number) => n > 0), emailed: true });
    const alert = await smtp.waitFor((message) => message.to.includes('owner@esim.example'), 10_000);
    expect(alert.subject).toMatch(/^Order audit: \d+ finding\(s\)/);
    expect(alert.text).toContain('refunded_before_succeeded');
    // Each instance serves on its own as well (the front alternates between them).
    for (const instance of instances) expect((await fetch(`${instance.url}/api/countries`)).status).toBe(200);
    expect(front.counts.lost + front.counts.noneUp).toBe(0);
  }, 180_000);

  it('on SIGTERM answers its open long-polls at once and exits well inside Cloud Run’s 10 s', async () => {
    // Cloud Run sends SIGTERM to an instance it stops (a rollout) and kills it 10 s later; a 25 s
    // long-poll would be cut off. It answers as when its time is up: the order as it is.
    const instance = instances.at(-1)!;
    const buyer = await signUp();
    const { PLAN } = testCatalogue();
    const placed = await fetch(`${instance.url}/api/orders`, {
      method: 'POST',
      headers: { Origin: SITE, Authorization: `Bearer ${buyer.idToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(orderRequest(PLAN)),
    });
    expect(placed.status).toBe(201);
    const { order } = (await placed.json()) as { order: OrderView };
    const poll = fetch(`${instance.url}/api/orders/${order.id}?lang=en&waitMs=25000`, {
      headers: { Origin: SITE, Authorization: `Bearer ${buyer.idToken}` },
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as OrderView, at: Date.now() }));
    // The poll is waiting (unpaid, nothing will change for 25 s).
    await new Promise((done) => setTimeout(done, 1_000));
    const signalledAt = Date.now();
    instance.stop();
    const answer = await poll;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: order.id, state: 'pending_payment' });
    expect(answer.at - signalledAt).toBeLessThan(2_000);
    expect(await instance.exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
    expect(instance.output()).toContain('SIGTERM: answering the open long-polls');
  }, 60_000);
});
