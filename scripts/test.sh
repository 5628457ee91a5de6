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

# --- the project's Python venv (the official MCP SDK for the interop test) ----------------------
venv="$root/.venv"
if ! "$venv/bin/python" -c 'import mcp, importlib.metadata as m; assert m.version("mcp").startswith("2.")' 2>/dev/null; then
  say "creating the Python venv in .venv (mcp 2.x)"
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

say "cargo clippy --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

say "cargo nextest run"
cargo nextest run --workspace --locked --no-fail-fast "$@"

say "doc tests"
cargo test --workspace --doc --locked --quiet
