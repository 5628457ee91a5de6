#!/usr/bin/env bash
# The console's web bundle (web/ → crates/server/console/, committed; deft serve embeds it).
#
#   scripts/web.sh build   npm ci + npm run build
#   scripts/web.sh check   build, then fail if the committed bundle differs from the fresh one
#   scripts/web.sh e2e     the Playwright browser tests against a real `deft serve`; needs
#                          DEFT_BIN (the deft binary), DEFT_MODEL_BIN (deft-scripted-model) and
#                          DEFT_ADB_DOUBLE_BIN (deft-adb-double, with Debian's adb on PATH);
#                          builds nothing in Rust. DEFT_UPDATE_SCREENSHOTS=1 also refreshes
#                          docs/screenshots/. Extra arguments go to `playwright test`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
web="$root/web"

say() { printf '\n==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

need_node() {
  command -v node >/dev/null || die "node is not installed (Node.js 20.19 or newer is needed for Vite 8)"
  command -v npm >/dev/null || die "npm is not installed"
  local v
  v=$(node -p 'process.versions.node')
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
    || die "node $v is too old: Vite 8 needs Node.js 20.19 or newer"
}

install() {
  need_node
  say "npm ci (web/)"
  (cd "$web" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --prefer-offline)
}

build() {
  install
  say "npm run build → crates/server/console"
  (cd "$web" && npm run build)
}

check() {
  build
  say "the committed bundle matches the fresh build"
  local changed untracked
  changed=$(git -C "$root" status --porcelain -- crates/server/console)
  if [ -n "$changed" ]; then
    printf '%s\n' "$changed" >&2
    git -C "$root" --no-pager diff --stat -- crates/server/console >&2 || true
    die "the committed console bundle is out of date: run scripts/web.sh build and commit"
  fi
  untracked=$(git -C "$root" ls-files --others --exclude-standard -- crates/server/console)
  [ -z "$untracked" ] || die "the committed console bundle is out of date: run scripts/web.sh build and commit"
  echo "console bundle up to date"
}

e2e() {
  [ -n "${DEFT_BIN:-}" ] || die "DEFT_BIN is not set: build deft (cargo build -p deft) and point DEFT_BIN at the binary"
  [ -n "${DEFT_MODEL_BIN:-}" ] || die "DEFT_MODEL_BIN is not set: build it (cargo build -p deft-test-support --bin deft-scripted-model) and point DEFT_MODEL_BIN at it"
  [ -n "${DEFT_ADB_DOUBLE_BIN:-}" ] || die "DEFT_ADB_DOUBLE_BIN is not set: build it (cargo build -p deft-test-support --bin deft-adb-double) and point DEFT_ADB_DOUBLE_BIN at it"
  [ -x "$DEFT_BIN" ] || die "DEFT_BIN=$DEFT_BIN is not an executable file"
  [ -x "$DEFT_MODEL_BIN" ] || die "DEFT_MODEL_BIN=$DEFT_MODEL_BIN is not an executable file"
  [ -x "$DEFT_ADB_DOUBLE_BIN" ] || die "DEFT_ADB_DOUBLE_BIN=$DEFT_ADB_DOUBLE_BIN is not an executable file"
  command -v adb >/dev/null || die "adb is not installed (apt-get install adb): the simulated phone sits behind the real adb server"
  local chromium="${DEFT_CHROMIUM:-/usr/bin/chromium}"
  [ -x "$chromium" ] || die "no Chromium at $chromium (install Debian's chromium or set DEFT_CHROMIUM)"
  [ -d "$web/node_modules" ] || install
  DEFT_BIN=$(realpath "$DEFT_BIN")
  DEFT_MODEL_BIN=$(realpath "$DEFT_MODEL_BIN")
  DEFT_ADB_DOUBLE_BIN=$(realpath "$DEFT_ADB_DOUBLE_BIN")
  export DEFT_BIN DEFT_MODEL_BIN DEFT_ADB_DOUBLE_BIN DEFT_CHROMIUM="$chromium" PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
  say "playwright test (web/e2e)"
  (cd "$web" && npx playwright test "$@")
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  build) build ;;
  check) check ;;
  e2e) e2e "$@" ;;
  *) die "usage: scripts/web.sh build | check | e2e [playwright args]" ;;
esac
