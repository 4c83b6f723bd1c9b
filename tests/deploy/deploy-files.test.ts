import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REQUIRED_VARIABLES, shopConfigFromEnv } from '../../src/server/config.ts';
import { POSTGRES_POOL_MAX } from '../../src/server/db/postgres.ts';
import { productionPreflight } from '../../src/server/preflight.ts';

/**
 * The deployment files against each other and against the code (issue 31; docs/going-live.md):
 * nothing here reaches Google Cloud, it checks what `deploy/deploy.sh release` would apply.
 */
const DEPLOY = new URL('../../deploy/', import.meta.url);
const text = (path: string) => readFileSync(new URL(path, DEPLOY), 'utf8');
const script = text('./deploy.sh');
const firebase = JSON.parse(text('../firebase.json')) as {
  hosting: { rewrites: { source: string; run?: { serviceId: string; region: string } }[] };
};
const packageJson = JSON.parse(text('../package.json')) as { scripts: Record<string, string> };

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: { containerPort: number }[];
  resources: { limits: Record<string, string> };
  env: EnvVar[];
  startupProbe?: { tcpSocket?: { port: number }; httpGet?: { path: string; port: number } };
  livenessProbe?: { httpGet?: { path: string; port: number } };
}
type Annotations = Record<string, string>;

/** The variables the API requires whose values are not secret: set in the service's spec, not Secret Manager. */
const PLAIN_REQUIRED = ['MAIL_FROM', 'VAPID_PUBLIC_KEY'];
/**
 * The secrets the API needs, each a Secret Manager secret of the same name: the database, every
 * required variable that is not plain (so a new one the API requires must be deployed too), and
 * the tokens of the scheduled reconcile and audit calls.
 */
const SECRETS = ['DATABASE_URL', ...REQUIRED_VARIABLES.filter((name) => !PLAIN_REQUIRED.includes(name)), 'RECONCILE_TOKEN', 'AUDIT_TOKEN'];

/** The plain placeholders deploy.sh puts in with envsubst (besides each secret's NAME_VERSION): only the names it lists are replaced. */
const substituted = /names='([^']+)'/.exec(script)?.[1]?.match(/\$\{(\w+)\}/g) ?? [];
/** What a real project might fill them with; each secret's version: its position in SECRETS, plus one. */
const SAMPLE: Record<string, string> = {
  IMAGE: 'europe-west3-docker.pkg.dev/travel-esim/esim-shop/api:0123456789ab',
  PROJECT_ID: 'travel-esim',
  SQL_INSTANCE: 'esim-shop-db',
  SITE_URL: 'https://shop.example-travel.com',
  MAIL_FROM: 'Travel eSIM <orders@example-travel.com>',
  PROVIDER_ALERT_EMAIL: 'owner@example-travel.com',
  VAPID_PUBLIC_KEY: 'BPublicKeyOfTheShop',
};
for (const [index, name] of SECRETS.entries()) SAMPLE[`${name}_VERSION`] = String(index + 1);
const render = (source: string) => source.replace(/\$\{(\w+)\}/g, (_, name: string) => SAMPLE[name] ?? `<no sample for ${name}>`);

const serviceSource = text('./cloud-run-service.yaml');
const jobSource = text('./migrate-job.yaml');
const service = parse(render(serviceSource)) as {
  metadata: { name: string; labels: Record<string, string>; annotations: Annotations };
  spec: {
    template: {
      metadata: { annotations: Annotations };
      spec: { serviceAccountName: string; containerConcurrency: number; timeoutSeconds: number; containers: Container[] };
    };
  };
};
const job = parse(render(jobSource)) as {
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    template: {
      metadata: { annotations: Annotations };
      spec: { template: { spec: { serviceAccountName: string; containers: Container[] } } };
    };
  };
};
const [api] = service.spec.template.spec.containers;
const [migrate] = job.spec.template.spec.template.spec.containers;

/** A setting at the top of deploy.sh (NAME=value or NAME="${NAME:-value}"). */
function scriptSetting(name: string): string | undefined {
  const line = new RegExp(`^${name}=(.*)$`, 'm').exec(script)?.[1];
  return line?.replace(/^"\$\{\w+:-(.*)\}"$/, '$1').replace(/^["']|["']$/g, '');
}
const scriptList = (name: string) => new RegExp(`^${name}=\\(([^)]*)\\)`, 'm').exec(script)?.[1]?.trim().split(/\s+/) ?? [];

const plain = new Map(api!.env.filter((v) => v.value !== undefined).map((v) => [v.name, v.value!]));
const fromSecrets = new Map(api!.env.filter((v) => v.valueFrom).map((v) => [v.name, v.valueFrom!.secretKeyRef]));

/** Values of the right shape for each secret, as Secret Manager would hand them to the instance. */
const SECRET_SAMPLES: Record<string, string> = {
  DATABASE_URL: 'postgres://shop:0123abcd@/shop?host=/cloudsql/travel-esim:europe-west3:esim-shop-db',
  STRIPE_SECRET_KEY: 'sk_live_0123456789',
  STRIPE_WEBHOOK_SECRET: 'whsec_0123456789',
  SMTP_URL: 'smtps://orders%40example-travel.com:secret@smtp.example-relay.com',
};

/** Read by shopConfigFromEnv but left unset in production on purpose, each with why. */
const LEFT_UNSET: Record<string, string> = {
  PORT: 'Cloud Run sets it (containerPort 8080) and refuses it in the YAML',
  SHOP_DATA_DIR: 'PGlite only; production has DATABASE_URL',
  STRIPE_API_URL: 'the local Stripe stand-in; the preflight refuses it',
  ESIM_ACCESS_BASE_URL: 'the partner stand-in; unset is https://api.esimaccess.com',
  FIREBASE_AUTH_EMULATOR_HOST: 'the Auth emulator; the preflight refuses it',
  PUSH_SERVICE_STAND_IN_ORIGIN: 'the push stand-in; the preflight refuses it',
  GOOGLE_CLOUD_PROJECT: 'FIREBASE_PROJECT_ID is set',
  PUBLIC_SITE_URL: 'SITE_URL is set',
  SHOP_ALLOWED_ORIGINS: 'unset: the origin of SITE_URL, the one site that calls the API',
  PUBLIC_API_URL: 'unset: SITE_URL + /api, where Hosting forwards',
  VAPID_SUBJECT: 'unset: mailto: the address of MAIL_FROM',
  ESIM_ACCESS_TIMEOUT_MS: "unset: 30 s, inside Hosting's 60 s",
  ESIM_GO_API_KEY: 'the second partner is optional: a secret, added once the provider has an eSIM Go account (docs/going-live.md)',
};

/** The environment one instance of the service starts with. */
const productionEnv = (): Record<string, string> => ({
  ...Object.fromEntries(plain),
  ...Object.fromEntries(SECRETS.map((name) => [name, SECRET_SAMPLES[name] ?? `${name.toLowerCase()}-value`])),
});

/**
 * The names shopConfigFromEnv reads: from the production environment, and from it less each one
 * of its variables in turn (the fallbacks a set variable skips: GOOGLE_CLOUD_PROJECT, PUBLIC_SITE_URL).
 */
function namesRead(): Set<string> {
  const read = new Set<string>();
  const full = productionEnv();
  const lessOne = Object.keys(full).map((name) => Object.fromEntries(Object.entries(full).filter(([other]) => other !== name)));
  for (const env of [full, ...lessOne]) {
    const watched = new Proxy<Record<string, string>>(env, {
      get: (target, name) => {
        if (typeof name === 'string') read.add(name);
        return target[name as string];
      },
    });
    try {
      shopConfigFromEnv(watched);
    } catch {
      // an environment less a required variable is refused, after its reads
    }
  }
  return read;
}

describe('the Cloud Run service (deploy/cloud-run-service.yaml)', () => {
  it('sets every variable shopConfigFromEnv reads, or leaves it unset on purpose', () => {
    expect(() => shopConfigFromEnv(productionEnv())).not.toThrow();
    const read = namesRead();
    const set = new Set([...plain.keys(), ...fromSecrets.keys()]);
    const unaccounted = [...read].filter((name) => !set.has(name) && !(name in LEFT_UNSET));
    expect(unaccounted, 'a new variable: set it in the service YAML, or add it to LEFT_UNSET with why').toEqual([]);
    for (const name of Object.keys(LEFT_UNSET)) {
      expect(read, `${name} is no longer read: drop it from LEFT_UNSET`).toContain(name);
      expect(set, `${name} is meant to be unset`).not.toContain(name);
    }
    expect(api!.env.map((v) => v.name)).toEqual([...new Set(api!.env.map((v) => v.name))]);
  });

  it('starts as production: the preflight finds nothing to refuse or warn about', () => {
    expect(productionPreflight(productionEnv())).toEqual({ problems: [], warnings: [] });
    expect(plain.get('NODE_ENV')).toBe('production');
  });

  it('takes every secret from Secret Manager by its name and the version deploy.sh pins, never as a plain value', () => {
    expect([...fromSecrets.keys()].sort()).toEqual([...SECRETS].sort());
    for (const name of SECRETS) expect(fromSecrets.get(name), name).toEqual({ name, key: SAMPLE[`${name}_VERSION`] });
    // Never "latest": an instance started after a new version was added would take it unreleased.
    expect(serviceSource).not.toMatch(/key:\s*'?latest/);
    expect(jobSource).not.toMatch(/key:\s*'?latest/);
    for (const name of plain.keys()) expect(name).not.toMatch(/SECRET|TOKEN|PASSWORD|PRIVATE|DATABASE_URL|SMTP_URL/);
    // deploy.sh creates exactly these: the ones you add, the ones it generates, and DATABASE_URL.
    expect(['DATABASE_URL', ...scriptList('SECRETS_FROM_YOU'), ...scriptList('SECRETS_GENERATED')].sort()).toEqual([...SECRETS].sort());
  });

  it('connects to Cloud SQL in its own region, with its own service account', () => {
    const region = service.metadata.labels['cloud.googleapis.com/location'];
    expect(service.spec.template.metadata.annotations['run.googleapis.com/cloudsql-instances']).toBe(`travel-esim:${region}:esim-shop-db`);
    expect(SECRET_SAMPLES['DATABASE_URL']).toContain(`/cloudsql/travel-esim:${region}:esim-shop-db`);
    expect(service.spec.template.spec.serviceAccountName).toBe('esim-shop-api@travel-esim.iam.gserviceaccount.com');
  });

  it('scales as designed: 1 to 4 instances of 250 requests, 1 CPU and 512 MiB, port 8080, probed', () => {
    const annotations = service.spec.template.metadata.annotations;
    expect(annotations['autoscaling.knative.dev/minScale']).toBe('1');
    expect(annotations['autoscaling.knative.dev/maxScale']).toBe('4');
    expect(service.spec.template.spec.containerConcurrency).toBe(250);
    expect(service.spec.template.spec.timeoutSeconds).toBeLessThanOrEqual(60);
    expect(api!.resources.limits).toEqual({ cpu: '1', memory: '512Mi' });
    expect(api!.ports).toEqual([{ name: 'http1', containerPort: 8080 }]);
    expect(api!.startupProbe?.tcpSocket?.port).toBe(8080);
    expect(api!.livenessProbe?.httpGet).toEqual({ path: '/api/push/public-key', port: 8080 });
  });

  it('has every placeholder filled by deploy.sh', () => {
    const used = new Set([...serviceSource.matchAll(/\$\{(\w+)\}/g), ...jobSource.matchAll(/\$\{(\w+)\}/g)].map((m) => `\${${m[1]}}`));
    const versions = SECRETS.map((name) => `\${${name}_VERSION}`);
    expect([...used].sort()).toEqual([...substituted, ...versions].sort());
    expect(script).toMatch(
      /for name in DATABASE_URL "\$\{SECRETS_GENERATED\[@\]\}" "\$\{SECRETS_FROM_YOU\[@\]\}"; do names\+=" \\\$\{\$\{name\}_VERSION\}"; done/,
    );
  });

  it('holds the long-polls: 25 s waits of many buyers at once fit, within Cloud Run’s 1,000 a container', () => {
    const concurrency = service.spec.template.spec.containerConcurrency;
    const maxScale = Number(service.spec.template.metadata.annotations['autoscaling.knative.dev/maxScale']);
    expect(concurrency).toBeLessThanOrEqual(1_000);
    // 80 × 4 = 320 was full with 320 buyers on the payment page, each waiting up to 25 s.
    expect(concurrency * maxScale).toBeGreaterThanOrEqual(1_000);
  });

  it('stays inside the database’s connections with two revisions at their maximum during a rollout, and the migration job', () => {
    const maxScale = Number(service.spec.template.metadata.annotations['autoscaling.knative.dev/maxScale']);
    // The pool, and the one connection that LISTENs for order changes.
    const perProcess = POSTGRES_POOL_MAX + 1;
    const reservedForSuperusers = 3;
    const limit = Number(scriptSetting('SQL_MAX_CONNECTIONS'));
    expect(script).toContain('--database-flags="max_connections=$SQL_MAX_CONNECTIONS"');
    const used = 2 * maxScale * perProcess + perProcess + reservedForSuperusers;
    expect(used).toBeLessThanOrEqual(limit);
    // The arithmetic the YAML and deploy.sh write down is this one.
    expect(serviceSource).toContain(`each\n        # instance holds up to ${POSTGRES_POOL_MAX} pooled`);
    expect(serviceSource).toContain(`2 × ${maxScale} × ${perProcess} = ${2 * maxScale * perProcess}`);
    expect(serviceSource).toContain(`${used} of the ${limit}`);
    expect(script).toContain(`2 × ${maxScale} × ${perProcess} + ${perProcess} + ${reservedForSuperusers} = ${used}`);
  });

  it('is public through the disabled invoker check, not an allUsers binding', () => {
    expect(service.metadata.annotations['run.googleapis.com/invoker-iam-disabled']).toBe('true');
    expect(script).not.toContain('--member=allUsers');
    expect(script).not.toMatch(/run services add-iam-policy-binding/);
  });
});

describe('the image build (deploy.sh release)', () => {
  it('runs Cloud Build in a region every project may use, as its own service account', () => {
    // Some projects may run Cloud Build only in these (Cloud Build locations, "restricted regions").
    const everyProject = ['us-central1', 'us-west2', 'europe-west1', 'asia-east1', 'australia-southeast1', 'southamerica-east1'];
    expect(everyProject).toContain(scriptSetting('BUILD_REGION'));
    const submit = /gc builds submit [^\n]*\\\n[^\n]*/.exec(script)?.[0] ?? '';
    expect(submit).toContain('--region "$BUILD_REGION"');
    expect(submit).toContain('--service-account "projects/$PROJECT_ID/serviceAccounts/$(account_email "$BUILD_ACCOUNT")"');
    expect(scriptSetting('BUILD_ACCOUNT')).toBe('esim-shop-build');
    expect(script).toContain('for account in "$API_ACCOUNT" "$MIGRATE_ACCOUNT" "$BUILD_ACCOUNT"; do');
    expect(script).toMatch(/--member="serviceAccount:\$\(account_email "\$BUILD_ACCOUNT"\)" --role=roles\/artifactregistry\.writer/);
    // A build as a chosen account needs its log somewhere it may write.
    expect(script).toContain('logging: CLOUD_LOGGING_ONLY');
  });
});

/**
 * `deploy.sh render DIR` with a stand-in gcloud on the PATH that answers what Secret Manager would:
 * the YAML files exactly as `release` applies them.
 */
describe('deploy.sh render: the YAML files as released', () => {
  const ROOT = fileURLToPath(new URL('../../', import.meta.url));
  /** Answers `secrets versions describe latest --secret NAME` from FAKE_VERSION_NAME and FAKE_STATE_NAME; anything else fails. */
  const FAKE_GCLOUD = `#!/usr/bin/env bash
printf '%s\\n' "$*" >>"$FAKE_GCLOUD_LOG"
args=("$@")
for ((i = 0; i < \${#args[@]}; i++)); do [[ "\${args[i]}" == --secret ]] && secret="\${args[i + 1]}"; done
if [[ " $* " == *" secrets versions describe latest "* && -n "\${secret:-}" ]]; then
  version="FAKE_VERSION_\${secret}"; state="FAKE_STATE_\${secret}"
  [[ -n "\${!version:-}" ]] || { echo "NOT_FOUND: \${secret}" >&2; exit 1; }
  printf 'projects/123456789012/secrets/%s/versions/%s\\t%s\\n' "\${secret}" "\${!version}" "\${!state:-ENABLED}"
  exit 0
fi
echo "the stand-in gcloud does not know: $*" >&2
exit 1
`;
  const VERSIONS = Object.fromEntries(SECRETS.map((name, index) => [name, String(7 + index * 3)]));

  function renderWith(state: Record<string, string> = {}) {
    const dir = mkdtempSync(join(tmpdir(), 'deploy-render-'));
    try {
      const bin = join(dir, 'bin');
      spawnSync('mkdir', [bin]);
      writeFileSync(join(bin, 'gcloud'), FAKE_GCLOUD);
      chmodSync(join(bin, 'gcloud'), 0o755);
      const out = join(dir, 'out');
      const run = spawnSync('bash', ['deploy/deploy.sh', 'render', out], {
        cwd: ROOT,
        encoding: 'utf8',
        env: {
          PATH: `${bin}:${process.env.PATH}`,
          HOME: dir,
          FAKE_GCLOUD_LOG: join(dir, 'gcloud.log'),
          ...Object.fromEntries(Object.entries(VERSIONS).map(([name, version]) => [`FAKE_VERSION_${name}`, version])),
          ...Object.fromEntries(Object.entries(state).map(([name, value]) => [`FAKE_STATE_${name}`, value])),
          ...Object.fromEntries(
            ['PROJECT_ID', 'SITE_URL', 'MAIL_FROM', 'PROVIDER_ALERT_EMAIL', 'VAPID_PUBLIC_KEY'].map((name) => [name, SAMPLE[name]!]),
          ),
        },
      });
      const read = (file: string) => {
        try {
          return readFileSync(join(out, file), 'utf8');
        } catch {
          return undefined;
        }
      };
      return {
        status: run.status,
        output: run.stdout + run.stderr,
        service: read('cloud-run-service.yaml'),
        job: read('migrate-job.yaml'),
        gcloud: read('../gcloud.log') ?? '',
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('names each secret’s current version by its number, never latest', () => {
    const rendered = renderWith();
    expect(rendered.status, rendered.output).toBe(0);
    for (const text of [rendered.service!, rendered.job!]) {
      expect(text).not.toMatch(/key:\s*'?latest/);
      expect(text).not.toContain('${');
    }
    const released = parse(rendered.service!) as typeof service;
    const env = released.spec.template.spec.containers[0]!.env;
    for (const name of SECRETS)
      expect(env.find((v) => v.name === name)?.valueFrom?.secretKeyRef, name).toEqual({ name, key: VERSIONS[name] });
    const releasedJob = parse(rendered.job!) as typeof job;
    expect(releasedJob.spec.template.spec.template.spec.containers[0]!.env).toContainEqual({
      name: 'DATABASE_URL',
      valueFrom: { secretKeyRef: { name: 'DATABASE_URL', key: VERSIONS['DATABASE_URL'] } },
    });
    // The image of HEAD, in the region's repository, and the plain values in place.
    expect(released.spec.template.spec.containers[0]!.image).toMatch(
      /^europe-west3-docker\.pkg\.dev\/travel-esim\/esim-shop\/api:[0-9a-f]{12}$/,
    );
    expect(env.find((v) => v.name === 'SITE_URL')?.value).toBe(SAMPLE['SITE_URL']);
    // It only asked Secret Manager which version is current, of each secret.
    expect(rendered.gcloud.trim().split('\n').sort()).toEqual(
      SECRETS.map(
        (name) => `--project travel-esim --quiet secrets versions describe latest --secret ${name} --format=value(name,state)`,
      ).sort(),
    );
  });

  it('refuses to release a secret whose newest version is disabled, rather than falling back to latest', () => {
    const rendered = renderWith({ SMTP_URL: 'DISABLED' });
    expect(rendered.status).not.toBe(0);
    expect(rendered.output).toContain(`SMTP_URL: its newest version, ${VERSIONS['SMTP_URL']}, is DISABLED`);
    expect(rendered.service).toBeUndefined();
  });
});

describe('the migration job (deploy/migrate-job.yaml)', () => {
  it('runs npm run db:migrate from the same image, on the same Cloud SQL instance, with DATABASE_URL from Secret Manager', () => {
    expect(packageJson.scripts['db:migrate']).toBeDefined();
    expect([...(migrate!.command ?? []), ...(migrate!.args ?? [])]).toEqual(['npm', 'run', 'db:migrate']);
    expect(migrate!.image).toBe(api!.image);
    expect(job.spec.template.metadata.annotations['run.googleapis.com/cloudsql-instances']).toBe(
      service.spec.template.metadata.annotations['run.googleapis.com/cloudsql-instances'],
    );
    // The same version of DATABASE_URL as the service's new revision.
    expect(migrate!.env).toContainEqual({
      name: 'DATABASE_URL',
      valueFrom: fromSecrets.has('DATABASE_URL') && { secretKeyRef: fromSecrets.get('DATABASE_URL') },
    });
    expect(job.spec.template.spec.template.spec.serviceAccountName).toBe('esim-shop-migrate@travel-esim.iam.gserviceaccount.com');
  });
});

describe('one name and one region everywhere', () => {
  const rewrite = firebase.hosting.rewrites.find((r) => r.source === '/api/**');

  it('firebase.json rewrites /api/** to the service, in its region', () => {
    expect(rewrite?.run).toEqual({ serviceId: service.metadata.name, region: service.metadata.labels['cloud.googleapis.com/location'] });
  });

  it('deploy.sh deploys that service and job in that region', () => {
    expect(scriptSetting('REGION')).toBe(rewrite?.run?.region);
    expect(job.metadata.labels['cloud.googleapis.com/location']).toBe(rewrite?.run?.region);
    expect(scriptSetting('SERVICE')).toBe(service.metadata.name);
    expect(scriptSetting('MIGRATE_JOB')).toBe(job.metadata.name);
    expect(scriptSetting('SQL_INSTANCE')).toBe(SAMPLE['SQL_INSTANCE']);
  });

  it('deploy.sh schedules reconcile every minute and the audit hourly, each with its own token', () => {
    expect(script).toMatch(/scheduler_job esim-shop-reconcile '\* \* \* \* \*' "\$url\/api\/jobs\/reconcile" RECONCILE_TOKEN/);
    expect(script).toMatch(/scheduler_job esim-shop-audit '0 \* \* \* \*' "\$url\/api\/jobs\/audit" AUDIT_TOKEN/);
  });
});
