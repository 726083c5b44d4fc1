#!/usr/bin/env bash
# The production install of docs/operations.md ("Production install"), step by step, on a clean
# clone of this repository's HEAD (`--worktree`: a copy of the working tree instead): build the console and shop ahead (`npm ci && npm run build`),
# reinstall without development packages (`npm ci --omit=dev`), then `doctor`, `migrate`, `serve`
# (API only) and `worker` in production mode, each checked from outside. `.ci/run` runs it.
# Every command reads the configuration from a file the documented way,
# `(set -a; . FILE; set +a; node bin/storefront.js …)`: first deploy/storefront.env.example as it
# ships (doctor must list its placeholders), then a filled-in copy.
#
# Production hosts bring their own Node.js 24; here the one `npm ci` put in this checkout's
# node_modules stands in for it (the clone's own is removed with the development packages). When
# the machine's own Node is older (Debian 12's Node 20), `npm ci --omit=dev` runs on it, as on a
# host that has not installed Node.js 24 yet: it must install, and say what the host lacks.
# On PostgreSQL (127.0.0.1:5432) when it answers, in a database of its own that is dropped after;
# else on the embedded database.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NODE24="$ROOT/node_modules/node/bin"
if [ ! -x "$NODE24/node" ]; then
  echo "production-install: run npm ci in $ROOT first (it brings Node.js 24)" >&2
  exit 1
fi
# The machine's own Node.js (on the PATH, or Debian's /usr/bin/node), when it is older than 24.
OLD_NODE=""
for candidate in "$(command -v node || true)" /usr/bin/node; do
  if [ -x "$candidate" ] && [ "$("$candidate" -p 'process.versions.node.split(".")[0] < 24')" = true ]; then
    OLD_NODE="$candidate"
    SYSTEM_PATH="$(dirname "$candidate"):$PATH"
    break
  fi
done
export PATH="$NODE24:$PATH"

WORK="$(mktemp -d)"
PIDS=()
DB=""
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [ -n "$DB" ]; then
    psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS \"$DB\" WITH (FORCE)" >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
step() { echo "== production install: $*"; }
fail() {
  echo "production install FAILED: $*" >&2
  exit 1
}
# `has PATTERN URL`: the answer at URL holds a line matching PATTERN. Read whole before matching:
# `curl | grep -q` under pipefail fails when grep stops reading early (curl gets SIGPIPE).
has() {
  local body
  body="$(curl -fsS "$2")" || return 1
  grep -qi -- "$1" <<<"$body"
}

if [ "${1:-}" = "--worktree" ]; then
  # The working tree as it is, uncommitted changes included (ignored files left out).
  step "copy of the working tree in $WORK/storefront"
  mkdir "$WORK/storefront"
  (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' | tar --null -T - -cf -) |
    tar -xf - -C "$WORK/storefront"
else
  step "clean clone of HEAD in $WORK/storefront"
  git clone -q "$ROOT" "$WORK/storefront"
fi
cd "$WORK/storefront"

step "build ahead: npm ci && npm run build"
npm ci --no-audit --no-fund --loglevel=error >/dev/null
npm run build >/dev/null
[ -f packages/console/dist/index.html ] || fail "the console was not built"
[ -f packages/shop/dist/index.html ] || fail "the shop was not built"

if [ -n "$OLD_NODE" ]; then
  step "runtime dependencies only: npm ci --omit=dev, on this machine's Node.js $("$OLD_NODE" --version)"
  omitted="$(PATH="$SYSTEM_PATH" npm ci --omit=dev --no-audit --no-fund --loglevel=error 2>&1)" ||
    fail "npm ci --omit=dev failed on Node.js $("$OLD_NODE" --version): $omitted"
  grep -q "Install Node.js 24 on this host" <<<"$omitted" || fail "prepare did not say what the host lacks: $omitted"
  ! grep -q ERR_UNKNOWN_FILE_EXTENSION <<<"$omitted" || fail "prepare failed on the TypeScript sources: $omitted"
  refused="$("$OLD_NODE" bin/storefront.js doctor 2>&1)" && fail "bin/storefront.js ran on Node.js $("$OLD_NODE" --version)"
  grep -q "Install Node.js 24 or newer on this host" <<<"$refused" || fail "bin/storefront.js advised: $refused"
  echo "   on $("$OLD_NODE" --version): installed; prepare and bin/storefront.js say to install Node.js 24"
else
  step "runtime dependencies only: npm ci --omit=dev"
  npm ci --omit=dev --no-audit --no-fund --loglevel=error | tail -n 3
fi
for dev in vite esbuild typescript eslint @redocly/cli playwright-core node react; do
  [ ! -e "node_modules/$dev" ] || fail "development package $dev was installed"
done
[ -f packages/console/dist/index.html ] || fail "npm ci --omit=dev removed the console's build"
echo "   node_modules: $(du -sh node_modules | cut -f1)"

# The documented doctor command on the example configuration as it ships: it reads the file
# (comments, quotes, an apostrophe) and lists its placeholders.
step "storefront doctor on deploy/storefront.env.example as it ships"
example="$(env -i PATH="$PATH" sh -c '(set -a; . deploy/storefront.env.example; set +a; exec node bin/storefront.js doctor)' 2>&1)" &&
  fail "doctor found nothing unsafe in the example configuration: $example"
for placeholder in SECRET_KEY "STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET" EMAIL_TRANSPORT PUBLIC_BASE_URL PLATFORM_MAIL_DOMAIN; do
  grep -q "^UNSAFE  $placeholder: " <<<"$example" || fail "doctor did not flag the example's $placeholder: $example"
done
echo "   $(grep -c "^UNSAFE" <<<"$example") unsafe findings, the placeholders among them"

# The configuration of a production host: the example with its placeholders filled in, as
# /etc/storefront/storefront.env would be (the SMTP server is never reached).
CONFIG="$WORK/storefront.env"
SECRET_KEY="$(node -e 'console.log(require("node:crypto").randomBytes(32).toString("base64url"))')"
sed -e "s|^SECRET_KEY=.*|SECRET_KEY=$SECRET_KEY|" \
  -e "s|^PUBLIC_BASE_URL=.*|PUBLIC_BASE_URL=https://shop.storefront-install.internal|" \
  -e "s|^PLATFORM_MAIL_DOMAIN=.*|PLATFORM_MAIL_DOMAIN=mail.storefront-install.internal|" \
  -e "s|^EMAIL_TRANSPORT=.*|EMAIL_TRANSPORT=smtp://127.0.0.1:2525|" \
  -e "s|^STRIPE_SECRET_KEY=.*|STRIPE_SECRET_KEY=sk_live_production_install_$$|" \
  -e "s|^STRIPE_WEBHOOK_SECRET=.*|STRIPE_WEBHOOK_SECRET=whsec_production_install_$$|" \
  -e "s|^HOST=.*|HOST=127.0.0.1|" -e "s|^PORT=.*|PORT=0|" -e "s|^LOG_LEVEL=.*|LOG_LEVEL=warn|" \
  -e "/^DATABASE_URL=/d" -e "/^REDIS_URL=/d" -e "/^METRICS_/d" \
  deploy/storefront.env.example >"$CONFIG"
echo "DATA_DIR=$WORK/data" >>"$CONFIG"
if command -v pg_isready >/dev/null && pg_isready -q -h 127.0.0.1 -p 5432 -t 3; then
  DB="storefront_production_install_$$"
  psql -q -h 127.0.0.1 -U postgres -d postgres -c "CREATE DATABASE \"$DB\"" >/dev/null
  echo "DATABASE_URL='postgres://postgres@127.0.0.1:5432/$DB?application_name=production-install&sslmode=disable'" >>"$CONFIG"
  if (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then echo "REDIS_URL=redis://127.0.0.1:6379" >>"$CONFIG"; fi
  step "on PostgreSQL ($DB)"
else
  step "on the embedded database (PostgreSQL does not answer)"
fi
# `storefront …` with the configuration file read the documented way (`set -a; . FILE; set +a`);
# VAR=value arguments before the command add to it (a process's own port). It takes the place of
# the shell it runs in, so it runs in a subshell `( … )`, a `$( … )` or the background, where the
# process it starts is the one `$!` names (SIGTERM reaches it).
storefront() {
  local extra=()
  while [[ "${1:-}" == *=* ]]; do
    extra+=("$1")
    shift
  done
  set -a
  # shellcheck source=/dev/null
  . "$CONFIG"
  set +a
  exec env "${extra[@]}" node bin/storefront.js "$@"
}

step "storefront doctor"
(storefront doctor) || fail "doctor found this production configuration unsafe"

step "storefront migrate"
(storefront migrate) | tail -n 1

free_port() { node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_for() { # url, what
  for _ in $(seq 1 100); do
    if curl -fsS -o /dev/null "$1" 2>/dev/null; then return 0; fi
    sleep 0.2
  done
  fail "$2 did not answer at $1"
}

POSTGRES="$(grep -c '^DATABASE_URL=' "$CONFIG" || true)"
if [ "$POSTGRES" = 1 ]; then
  step "storefront serve (RUN_WORKERS=false) and storefront worker"
  SERVE_ENV=(RUN_WORKERS=false)
else
  step "storefront serve (with its worker loops: the embedded database takes one process)"
  SERVE_ENV=()
fi
API_PORT="$(free_port)"
API_METRICS="$(free_port)"
storefront "${SERVE_ENV[@]}" PORT="$API_PORT" METRICS_PORT="$API_METRICS" serve >"$WORK/serve.log" 2>&1 &
PIDS+=($!)
wait_for "http://127.0.0.1:$API_PORT/readyz" "serve"
has '<div id="root"' "http://127.0.0.1:$API_PORT/admin/" || fail "the console is not served at /admin/"
has '<!doctype html>' "http://127.0.0.1:$API_PORT/shop/" || fail "the shop is not served at /shop/"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$API_PORT/admin/dev/mailbox")" = 404 ] ||
  fail "the dev mailbox exists in production mode"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$API_PORT/metrics")" = 404 ] ||
  fail "/metrics is open on the public port"
has '^storefront_http_requests_total' "http://127.0.0.1:$API_METRICS/metrics" ||
  fail "no request metrics on METRICS_PORT"
grep -q "Publishable key:" "$WORK/serve.log" && fail "a demo store was created in production mode"

if [ "$POSTGRES" = 1 ]; then
  WORKER_METRICS="$(free_port)"
  storefront METRICS_PORT="$WORKER_METRICS" worker >"$WORK/worker.log" 2>&1 &
  PIDS+=($!)
  wait_for "http://127.0.0.1:$WORKER_METRICS/metrics" "worker"
  has '^storefront_outbox_pending_events' "http://127.0.0.1:$WORKER_METRICS/metrics" ||
    fail "no outbox metrics from the worker"
  step "stores create (the CLI beside the running processes)"
  created="$(storefront stores create --name "Production Install" --slug prod-install \
    --currency EUR --owner-email owner@example.com)" || fail "stores create"
  grep -q "Created store prod-install" <<<"$created" || fail "stores create printed: $created"
  status="$(curl -sS -X POST -H 'content-type: application/json' \
    -d '{"storeSlug":"prod-install","email":"owner@example.com"}' \
    "http://127.0.0.1:$API_PORT/admin/v1/auth/sign-in" -o /dev/null -w '%{http_code}')"
  [ "$status" = 202 ] || fail "admin sign-in answered $status, not 202"
fi

if command -v systemd-analyze >/dev/null 2>&1; then
  step "systemd-analyze verify deploy/systemd/*.service"
  systemd-analyze verify --man=no deploy/systemd/storefront.service deploy/systemd/storefront-worker.service ||
    fail "the systemd units do not verify"
fi

step "SIGTERM: every process stops cleanly"
for pid in "${PIDS[@]}"; do kill -TERM "$pid"; done
for pid in "${PIDS[@]}"; do
  wait "$pid" || fail "a process exited with status $? on SIGTERM (logs: $(cat "$WORK"/*.log))"
done
PIDS=()
echo "== production install: passed"
