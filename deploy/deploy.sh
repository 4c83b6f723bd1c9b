#!/usr/bin/env bash
# The shop's production set-up on Google Cloud, as one script (issue 31; docs/going-live.md):
#
#   deploy/deploy.sh setup     once, on an empty project, and again whenever it says so: APIs,
#                              the image registry, Cloud SQL (PostgreSQL 16), the service accounts
#                              and their roles, the secrets in Secret Manager, the scheduler jobs.
#                              Every step first looks whether its thing exists, so a second run
#                              only does what is missing.
#   deploy/deploy.sh release   every release: the image (Cloud Build), the migrations (a Cloud Run
#                              job, waited for), the API (deploy/cloud-run-service.yaml), the
#                              scheduler jobs, then the site (Firebase Hosting).
#   deploy/deploy.sh render DIR  the two YAML files as `release` would apply them now (the image of
#                              HEAD, each secret's current version), written to DIR to read.
#
# Why a gcloud script and not Terraform: one small shop run by one person. A script keeps no
# state file to store, lock and back up (Terraform would need a state bucket before anything
# else exists), is read top to bottom by the person who runs it, and uses the same commands the
# Google Cloud documentation and its error messages talk about. The declarative parts are files
# beside it: the service (cloud-run-service.yaml) and the migration job (migrate-job.yaml), which
# `gcloud run ... replace` applies as they are. What a script cannot do that Terraform would:
# notice drift (a setting changed by hand in the console). `release` re-applies the two YAML
# files and the scheduler jobs every time, which covers what changes most.
#
# Needs: gcloud (logged in as a project owner: `gcloud auth login`), Node 24 with this repo's
# packages (`npm ci`; the Firebase CLI comes with them, logged in: `npx firebase login`), git,
# openssl and envsubst (gettext; Cloud Shell has all of them).
set -euo pipefail
shopt -s inherit_errexit

# ---------------------------------------------------------------------------------------------
# Settings. Export them or edit them here; `setup` needs PROJECT_ID, `release` also the rest.
# ---------------------------------------------------------------------------------------------
PROJECT_ID="${PROJECT_ID:-}"
# Frankfurt (EU). Also in cloud-run-service.yaml, migrate-job.yaml and firebase.json:
# deploy/deploy.test.ts checks that all four name the same region.
REGION=europe-west3
SQL_INSTANCE="${SQL_INSTANCE:-esim-shop-db}"
# 1 dedicated vCPU, 3.75 GB. Shared-core tiers have no SLA and 25-50 connections.
SQL_TIER="${SQL_TIER:-db-custom-1-3840}"
# The database's connection limit (set explicitly, so another tier cannot lower it unnoticed). What
# uses it, counted in cloud-run-service.yaml (maxScale) and checked by tests/deploy/deploy-files.test.ts:
# two revisions at once during a rollout, each at 4 instances of 9 connections, the migration job's
# 9 and PostgreSQL's 3 reserved for superusers: 2 × 4 × 9 + 9 + 3 = 84, 16 left for psql.
SQL_MAX_CONNECTIONS=100
DB_NAME=shop
DB_USER=shop
REPOSITORY=esim-shop
SERVICE=esim-shop-api
MIGRATE_JOB=esim-shop-migrate
API_ACCOUNT=esim-shop-api
MIGRATE_ACCOUNT=esim-shop-migrate
# Cloud Build runs as its own account (pushing to the image repository, writing its logs), not as
# the project's default build account, whose roles differ from project to project.
BUILD_ACCOUNT=esim-shop-build
# Cloud Build in europe-west1 (Belgium, EU): one of the regions every project may build in. Some
# projects may use only those (us-central1, us-west2, europe-west1, asia-east1, australia-southeast1,
# southamerica-east1), so a build in europe-west3 can be refused. The image is still stored in REGION.
BUILD_REGION=europe-west1
# Where buyers arrive (the Hosting site's custom domain), e.g. https://shop.example-travel.com
SITE_URL="${SITE_URL:-}"
# The order e-mails' sender, e.g. 'Travel eSIM <orders@example-travel.com>' (its domain needs SPF and DKIM for the relay in SMTP_URL)
MAIL_FROM="${MAIL_FROM:-}"
# Where the shop's own alerts go: the partner balance running low, the hourly audit's findings
PROVIDER_ALERT_EMAIL="${PROVIDER_ALERT_EMAIL:-}"
# The Web Push public key (`npx web-push generate-vapid-keys`; its private half is the VAPID_PRIVATE_KEY secret)
VAPID_PUBLIC_KEY="${VAPID_PUBLIC_KEY:-}"
# The site build's Firebase web configuration (Firebase console, Project settings, Your apps: public by design)
PUBLIC_FIREBASE_API_KEY="${PUBLIC_FIREBASE_API_KEY:-}"
PUBLIC_FIREBASE_APP_ID="${PUBLIC_FIREBASE_APP_ID:-}"
PUBLIC_FIREBASE_AUTH_DOMAIN="${PUBLIC_FIREBASE_AUTH_DOMAIN:-${PROJECT_ID}.firebaseapp.com}"

# The secrets, by name (the same names as the variables in cloud-run-service.yaml).
# Values only you can get: setup creates them empty and says how to add each.
SECRETS_FROM_YOU=(STRIPE_SECRET_KEY STRIPE_WEBHOOK_SECRET ESIM_ACCESS_CODE ESIM_ACCESS_SECRET SMTP_URL VAPID_PRIVATE_KEY)
# Random values the shop makes for itself: setup fills them (never replaces one that exists).
SECRETS_GENERATED=(PARTNER_WEBHOOK_TOKEN ALERTS_SECRET RECONCILE_TOKEN AUDIT_TOKEN)
# DATABASE_URL: setup writes it with the database user's generated password.

# ---------------------------------------------------------------------------------------------

gc() { gcloud --project "$PROJECT_ID" --quiet "$@"; }
exists() { "$@" >/dev/null 2>&1; }
say() { printf '\n== %s\n' "$*"; }
fail() {
  printf 'deploy.sh: %s\n' "$*" >&2
  exit 1
}
need() {
  local name
  for name in "$@"; do [[ -n "${!name}" ]] || fail "set $name first (top of deploy/deploy.sh, or export it)"; done
}
random_secret() { openssl rand -hex 32; }
has_version() { [[ -n "$(gc secrets versions list "$1" --filter='state:ENABLED' --limit=1 --format='value(name)' 2>/dev/null)" ]]; }
add_version() { printf '%s' "$2" | gc secrets versions add "$1" --data-file=- >/dev/null; }
connection_name() { printf '%s:%s:%s' "$PROJECT_ID" "$REGION" "$SQL_INSTANCE"; }
account_email() { printf '%s@%s.iam.gserviceaccount.com' "$1" "$PROJECT_ID"; }

# The API's URL: the service's own once it exists, else the deterministic one Cloud Run gives it.
service_url() {
  local url number
  url="$(gc run services describe "$SERVICE" --region "$REGION" --format='value(status.url)' 2>/dev/null || true)"
  if [[ -z "$url" ]]; then
    number="$(gc projects describe "$PROJECT_ID" --format='value(projectNumber)')"
    [[ -n "$number" ]] || fail "no project number for $PROJECT_ID"
    url="https://${SERVICE}-${number}.${REGION}.run.app"
  fi
  printf '%s' "$url"
}

enable_apis() {
  say "APIs"
  gc services enable run.googleapis.com sqladmin.googleapis.com secretmanager.googleapis.com \
    artifactregistry.googleapis.com cloudbuild.googleapis.com cloudscheduler.googleapis.com iam.googleapis.com \
    identitytoolkit.googleapis.com firebase.googleapis.com firebasehosting.googleapis.com
}

image_registry() {
  say "Artifact Registry repository $REPOSITORY ($REGION)"
  exists gc artifacts repositories describe "$REPOSITORY" --location "$REGION" ||
    gc artifacts repositories create "$REPOSITORY" --location "$REGION" --repository-format=docker \
      --description="The shop API's images"
}

database() {
  say "Cloud SQL for PostgreSQL 16: $SQL_INSTANCE ($SQL_TIER, $REGION)"
  if ! exists gc sql instances describe "$SQL_INSTANCE"; then
    # About 10 minutes. Enterprise edition (PostgreSQL 16 would default to Enterprise Plus, several
    # times the price); one zone (a small shop's outage of minutes costs less than a standby);
    # daily backups kept 14 days with point-in-time recovery; no authorized networks: only the
    # Cloud SQL connector (IAM-checked) reaches it; deletion protection on.
    gc sql instances create "$SQL_INSTANCE" --database-version=POSTGRES_16 --edition=enterprise \
      --tier="$SQL_TIER" --region="$REGION" --availability-type=zonal --storage-auto-increase \
      --backup-start-time=02:00 --retained-backups-count=14 --enable-point-in-time-recovery \
      --database-flags="max_connections=$SQL_MAX_CONNECTIONS" --ssl-mode=ENCRYPTED_ONLY --deletion-protection
  fi
  exists gc sql databases describe "$DB_NAME" --instance "$SQL_INSTANCE" ||
    gc sql databases create "$DB_NAME" --instance "$SQL_INSTANCE"
  ensure_secret DATABASE_URL
  if ! has_version DATABASE_URL; then
    # A new password that no person sees: straight into the user and into DATABASE_URL. Hex, so
    # nothing in the URL needs percent-encoding. The socket path is where the connector puts it.
    local password
    password="$(random_secret)"
    if [[ -n "$(gc sql users list --instance "$SQL_INSTANCE" --filter="name=$DB_USER" --format='value(name)')" ]]; then
      gc sql users set-password "$DB_USER" --instance "$SQL_INSTANCE" --password "$password"
    else
      gc sql users create "$DB_USER" --instance "$SQL_INSTANCE" --password "$password"
    fi
    add_version DATABASE_URL "postgres://${DB_USER}:${password}@/${DB_NAME}?host=/cloudsql/$(connection_name)"
    echo "DATABASE_URL written (user $DB_USER, database $DB_NAME, through /cloudsql/$(connection_name))"
  fi
}

service_accounts() {
  say "Service accounts and their roles"
  local account role
  for account in "$API_ACCOUNT" "$MIGRATE_ACCOUNT" "$BUILD_ACCOUNT"; do
    exists gc iam service-accounts describe "$(account_email "$account")" ||
      gc iam service-accounts create "$account" --display-name="$account"
  done
  # The API: Cloud SQL through the connector; Firebase Auth as admin (verifying tokens against
  # revocation, custom claims for /ops, disabling and deleting accounts). Its secrets: below,
  # one by one. The migration job: Cloud SQL and DATABASE_URL only.
  for role in roles/cloudsql.client roles/firebaseauth.admin; do
    gc projects add-iam-policy-binding "$PROJECT_ID" --member="serviceAccount:$(account_email "$API_ACCOUNT")" \
      --role="$role" --condition=None >/dev/null
  done
  gc projects add-iam-policy-binding "$PROJECT_ID" --member="serviceAccount:$(account_email "$MIGRATE_ACCOUNT")" \
    --role=roles/cloudsql.client --condition=None >/dev/null
  # The build: reads the uploaded source, writes its log to Cloud Logging, pushes to this repository only.
  for role in roles/logging.logWriter roles/storage.objectViewer; do
    gc projects add-iam-policy-binding "$PROJECT_ID" --member="serviceAccount:$(account_email "$BUILD_ACCOUNT")" \
      --role="$role" --condition=None >/dev/null
  done
  gc artifacts repositories add-iam-policy-binding "$REPOSITORY" --location "$REGION" \
    --member="serviceAccount:$(account_email "$BUILD_ACCOUNT")" --role=roles/artifactregistry.writer >/dev/null
}

# A secret, kept in the region, readable by the API's account (and DATABASE_URL by the migration's).
ensure_secret() {
  local name="$1"
  exists gc secrets describe "$name" ||
    gc secrets create "$name" --replication-policy=user-managed --locations="$REGION" >/dev/null
  gc secrets add-iam-policy-binding "$name" --member="serviceAccount:$(account_email "$API_ACCOUNT")" \
    --role=roles/secretmanager.secretAccessor --condition=None >/dev/null
  if [[ "$name" == DATABASE_URL ]]; then
    gc secrets add-iam-policy-binding "$name" --member="serviceAccount:$(account_email "$MIGRATE_ACCOUNT")" \
      --role=roles/secretmanager.secretAccessor --condition=None >/dev/null
  fi
}

secrets() {
  say "Secret Manager"
  local name
  for name in "${SECRETS_GENERATED[@]}"; do
    ensure_secret "$name"
    has_version "$name" || {
      add_version "$name" "$(random_secret)"
      echo "$name: generated"
    }
  done
  for name in "${SECRETS_FROM_YOU[@]}"; do ensure_secret "$name"; done
}

# The secrets still without a value, each with the command that adds one (read from the terminal,
# so the value stays out of the shell's history).
missing_secrets() {
  local name missing=0
  for name in DATABASE_URL "${SECRETS_GENERATED[@]}" "${SECRETS_FROM_YOU[@]}"; do
    if ! has_version "$name"; then
      missing=1
      # shellcheck disable=SC2016 # $v is for the person who runs the printed command
      printf '  %s: read -rs v && printf %%s "$v" | gcloud --project %s secrets versions add %s --data-file=-\n' \
        "$name" "$PROJECT_ID" "$name"
    fi
  done
  return "$missing"
}

# Cloud Scheduler calls the API with its bearer tokens: reconcile every minute, the order audit
# every hour (it e-mails PROVIDER_ALERT_EMAIL when it finds something). The token sits in the
# job's header, readable by whoever may read the scheduler's jobs (the project's owners). Created
# or updated; `release` runs this again, so a rotated token or a new URL reaches the jobs.
scheduler_jobs() {
  say "Cloud Scheduler"
  local url
  url="$(service_url)"
  scheduler_job esim-shop-reconcile '* * * * *' "$url/api/jobs/reconcile" RECONCILE_TOKEN \
    'Delivers, retries and expires what is due (POST /api/jobs/reconcile)'
  scheduler_job esim-shop-audit '0 * * * *' "$url/api/jobs/audit" AUDIT_TOKEN \
    'The hourly order audit; e-mails PROVIDER_ALERT_EMAIL what it finds (POST /api/jobs/audit)'
}

scheduler_job() {
  local name="$1" schedule="$2" uri="$3" secret="$4" description="$5" token version
  # In a release, the version the new revision was given (pin_secret_versions).
  version="${secret}_VERSION"
  token="$(gc secrets versions access "${!version:-latest}" --secret "$secret")"
  local common=(--location "$REGION" --schedule "$schedule" --time-zone Etc/UTC --uri "$uri" --http-method POST
    --attempt-deadline 60s --description "$description")
  if exists gc scheduler jobs describe "$name" --location "$REGION"; then
    gc scheduler jobs update http "$name" "${common[@]}" --update-headers "Authorization=Bearer $token" >/dev/null
  else
    # No retries: the next minute's (or hour's) call is the retry.
    gc scheduler jobs create http "$name" "${common[@]}" --headers "Authorization=Bearer $token" \
      --max-retry-attempts 0 >/dev/null
  fi
  echo "$name: $schedule POST $uri"
}

setup() {
  need PROJECT_ID
  enable_apis
  image_registry
  service_accounts
  database
  secrets
  scheduler_jobs
  say "Left to do"
  if missing_secrets; then
    echo "  Every secret has a value."
  else
    echo "  Add the values above, then run: deploy/deploy.sh release"
  fi
  cat <<EOF
  In the Firebase console (project $PROJECT_ID): Authentication with its sign-in providers,
  a Hosting site with the custom domain of SITE_URL, and the web app whose config gives
  PUBLIC_FIREBASE_API_KEY and PUBLIC_FIREBASE_APP_ID (docs/going-live.md).
EOF
}

# ---------------------------------------------------------------------------------------------

# Each secret's current version, by number, as NAME_VERSION (DATABASE_URL_VERSION, ...): the YAML
# names it instead of `latest`. An instance reads its secrets when it starts, so with `latest` an
# instance started later (scaling out, a restart) would take a version added since the release,
# one nobody released, and instances would differ. Pinned, a new version reaches them only
# through the next `release`.
pin_secret_versions() {
  local name described path state version
  for name in DATABASE_URL "${SECRETS_GENERATED[@]}" "${SECRETS_FROM_YOU[@]}"; do
    described="$(gc secrets versions describe latest --secret "$name" --format='value(name,state)')" ||
      fail "$name: no version to release (deploy/deploy.sh setup says how to add one)"
    read -r path state <<<"$described"
    version="${path##*/}"
    [[ "$version" =~ ^[0-9]+$ ]] || fail "$name: Secret Manager named no version number ($described)"
    [[ "$state" == ENABLED ]] || fail "$name: its newest version, $version, is $state: enable it or add a new one"
    printf -v "${name}_VERSION" '%s' "$version"
    export "${name}_VERSION"
  done
}

# A YAML file with its placeholders put in; only these names are replaced, nothing else in it.
render() {
  local out names name
  out="$WORK/$(basename "$1")"
  # shellcheck disable=SC2016 # the list of names for envsubst, not a string to expand
  names='${IMAGE} ${PROJECT_ID} ${SQL_INSTANCE} ${SITE_URL} ${MAIL_FROM} ${PROVIDER_ALERT_EMAIL} ${VAPID_PUBLIC_KEY}'
  for name in DATABASE_URL "${SECRETS_GENERATED[@]}" "${SECRETS_FROM_YOU[@]}"; do names+=" \${${name}_VERSION}"; done
  envsubst "$names" <"$1" >"$out"
  ! grep -n '[$][{]' "$out" || fail "$1: a placeholder above has no value"
  ! grep -n 'key: *.\?latest' "$out" || fail "$1: a secret above is not pinned to a version"
  printf '%s' "$out"
}

# What the YAML files take: the plain settings, checked, and the image of HEAD.
yaml_settings() {
  need PROJECT_ID SITE_URL MAIL_FROM PROVIDER_ALERT_EMAIL VAPID_PUBLIC_KEY
  command -v envsubst >/dev/null || fail "envsubst is missing (Debian: apt-get install gettext-base; macOS: brew install gettext)"
  [[ "$SITE_URL" == https://* ]] || fail "SITE_URL must be an https:// URL"
  local value
  # The plain values go into the YAML between single quotes.
  for value in "$SITE_URL" "$MAIL_FROM" "$PROVIDER_ALERT_EMAIL" "$VAPID_PUBLIC_KEY"; do
    [[ "$value" != *"'"* && "$value" != *$'\n'* ]] || fail "a setting holds a quote or a line break: $value"
  done
  export PROJECT_ID SQL_INSTANCE SITE_URL MAIL_FROM PROVIDER_ALERT_EMAIL VAPID_PUBLIC_KEY
  IMAGE="${REGION}-docker.pkg.dev/${PROJECT_ID}/${REPOSITORY}/api:$(git rev-parse --short=12 HEAD)"
  export IMAGE
}

# `render DIR`: the YAML files as `release` would apply them now, to read before releasing.
render_to() {
  [[ -n "${1:-}" ]] || fail "usage: deploy/deploy.sh render DIR"
  yaml_settings
  mkdir -p "$1"
  WORK="$1"
  pin_secret_versions
  render deploy/migrate-job.yaml
  echo
  render deploy/cloud-run-service.yaml
  echo
}

release() {
  need PUBLIC_FIREBASE_API_KEY PUBLIC_FIREBASE_APP_ID
  yaml_settings
  say "Secrets"
  missing_secrets || fail "add the secrets above first (the API refuses to start without them)"
  echo "  every secret has a value"
  # The image is built from the commit, not from the working tree: its tag names exactly what runs.
  [[ -z "$(git status --porcelain)" ]] || fail "commit or set aside your changes first: the release is built from HEAD"
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT

  say "Image $IMAGE"
  if exists gc artifacts docker images describe "$IMAGE"; then
    echo "  already built"
  else
    mkdir "$WORK/source"
    git archive --format=tar HEAD | tar -x -C "$WORK/source"
    # The Dockerfile and .dockerignore at the root decide what goes in. Built in BUILD_REGION as
    # BUILD_ACCOUNT; a build with its own account keeps its log in Cloud Logging only.
    cat >"$WORK/cloudbuild.yaml" <<EOF
steps:
  - name: gcr.io/cloud-builders/docker
    args: ['build', '--tag', '$IMAGE', '.']
images: ['$IMAGE']
options:
  logging: CLOUD_LOGGING_ONLY
EOF
    gc builds submit "$WORK/source" --region "$BUILD_REGION" --config "$WORK/cloudbuild.yaml" \
      --service-account "projects/$PROJECT_ID/serviceAccounts/$(account_email "$BUILD_ACCOUNT")"
  fi

  say "Migrations (job $MIGRATE_JOB), before the new revision takes traffic"
  # Each secret's version as of now, named in both YAML files.
  pin_secret_versions
  local job_yaml service_yaml
  job_yaml="$(render deploy/migrate-job.yaml)"
  service_yaml="$(render deploy/cloud-run-service.yaml)"
  gc run jobs replace "$job_yaml" --region "$REGION"
  gc run jobs execute "$MIGRATE_JOB" --region "$REGION" --wait

  say "API (service $SERVICE)"
  # Waits until the new revision is ready (its startup probe passed: preflight and schema check)
  # and serving; a revision that fails to start leaves the previous one serving.
  # Public (Firebase Hosting calls it as anyone on the internet would) through the YAML's
  # run.googleapis.com/invoker-iam-disabled, not an allUsers binding, which an organisation's
  # domain-restricted sharing refuses.
  gc run services replace "$service_yaml" --region "$REGION"
  scheduler_jobs

  say "Site (Firebase Hosting; /api/** goes to $SERVICE in $REGION, firebase.json)"
  export PUBLIC_SITE_URL="$SITE_URL" PUBLIC_FIREBASE_PROJECT_ID="$PROJECT_ID"
  export PUBLIC_FIREBASE_API_KEY PUBLIC_FIREBASE_APP_ID PUBLIC_FIREBASE_AUTH_DOMAIN
  npm ci
  npm run build
  # The policies' frame-src names this project's auth domain.
  npm run csp
  npx firebase deploy --only hosting --project "$PROJECT_ID"
  if [[ -n "$(git status --porcelain firebase.json)" ]]; then
    echo "firebase.json now names this project's auth domain in its policies: commit it."
  fi
  say "Released $IMAGE: now the first-day checks (docs/going-live.md)"
}

case "${1:-}" in
  setup) setup ;;
  release) release ;;
  render) render_to "${2:-}" ;;
  *)
    echo "usage: deploy/deploy.sh setup|release|render DIR   (docs/going-live.md)" >&2
    exit 2
    ;;
esac
