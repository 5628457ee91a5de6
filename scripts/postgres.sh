# shellcheck shell=bash
# The test PostgreSQL: a throwaway cluster in /var/tmp/deft-postgres listening only on
# 127.0.0.1:54329 (trust auth, superuser `postgres`, fsync off — test data only).
#
#   source scripts/postgres.sh     installs Debian's postgresql when missing, creates the cluster
#                                  once, starts it when it is not running, waits until it accepts
#                                  connections, exports DEFT_TEST_DATABASE_URL
#   bash scripts/postgres.sh       the same, then prints the URL
#   bash scripts/postgres.sh stop  stops the cluster (its files stay)
#
# Re-sourcing while the server is up is a fast no-op. Works as root (the server runs as the
# `postgres` user, which PostgreSQL requires) and as a normal user (the server runs as that user;
# installing the package then needs sudo).

deft_pg_port=54329
deft_pg_dir=/var/tmp/deft-postgres

# Runs a command as the user that owns the cluster.
deft_pg_as_owner() {
  if [ "$(id -u)" -ne 0 ]; then
    "$@"
  elif command -v runuser >/dev/null 2>&1; then
    runuser -u postgres -- "$@"
  else
    su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
  fi
}

# Prints the newest /usr/lib/postgresql/*/bin that has initdb, pg_ctl and pg_isready.
deft_pg_bindir() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/pg_isready" ]; then
      printf '%s\n' "$d"
    fi
  done | sort -t/ -k5 -V | tail -n 1
}

deft_pg_install() {
  echo "==> installing Debian postgresql (initdb/pg_ctl not found under /usr/lib/postgresql/*/bin)" >&2
  local sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends postgresql
}

deft_pg_start() {
  local bin data="$deft_pg_dir/data" log="$deft_pg_dir/postgres.log"
  local url="postgres://postgres@127.0.0.1:$deft_pg_port/postgres"

  bin=$(deft_pg_bindir)
  if [ -z "$bin" ]; then
    deft_pg_install || { echo "postgres.sh: installing postgresql failed" >&2; return 1; }
    bin=$(deft_pg_bindir)
    [ -n "$bin" ] || { echo "postgres.sh: postgresql installed but no initdb/pg_ctl under /usr/lib/postgresql/*/bin" >&2; return 1; }
  fi

  # Fast path: our server is already up.
  if "$bin/pg_isready" -q -h 127.0.0.1 -p "$deft_pg_port"; then
    export DEFT_TEST_DATABASE_URL="$url"
    return 0
  fi

  if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    echo "postgres.sh: running as root but there is no 'postgres' user to run the server (PostgreSQL refuses root); reinstall the postgresql package" >&2
    return 1
  fi

  if [ ! -s "$data/PG_VERSION" ]; then
    echo "==> creating the test PostgreSQL cluster in $data" >&2
    rm -rf "$data"
    mkdir -p "$deft_pg_dir" || return 1
    [ "$(id -u)" -eq 0 ] && chown postgres: "$deft_pg_dir"
    deft_pg_as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --no-locale \
      >"$deft_pg_dir/initdb.log" 2>&1 || {
      echo "postgres.sh: initdb failed; see $deft_pg_dir/initdb.log:" >&2
      tail -n 20 "$deft_pg_dir/initdb.log" >&2
      return 1
    }
    deft_pg_as_owner sh -c "cat >> '$data/postgresql.conf'" <<EOF || return 1
# deft test cluster (scripts/postgres.sh)
listen_addresses = '127.0.0.1'
port = $deft_pg_port
unix_socket_directories = '$deft_pg_dir'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
  fi

  echo "==> starting the test PostgreSQL on 127.0.0.1:$deft_pg_port (log: $log)" >&2
  deft_pg_as_owner "$bin/pg_ctl" -D "$data" -l "$log" -w -t 60 start >/dev/null || {
    echo "postgres.sh: pg_ctl start failed; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    return 1
  }
  local i
  for i in $(seq 1 60); do
    if "$bin/pg_isready" -q -h 127.0.0.1 -p "$deft_pg_port"; then
      export DEFT_TEST_DATABASE_URL="$url"
      return 0
    fi
    sleep 0.5
  done
  echo "postgres.sh: the server did not accept connections on 127.0.0.1:$deft_pg_port within 30 s; see $log" >&2
  return 1
}

deft_pg_stop() {
  local bin
  bin=$(deft_pg_bindir) || return 1
  [ -s "$deft_pg_dir/data/PG_VERSION" ] || return 0
  deft_pg_as_owner "$bin/pg_ctl" -D "$deft_pg_dir/data" -m fast -w stop
}

if (return 0 2>/dev/null); then
  deft_pg_start
else
  set -euo pipefail
  case "${1:-start}" in
    start) deft_pg_start && echo "$DEFT_TEST_DATABASE_URL" ;;
    stop) deft_pg_stop ;;
    *) echo "usage: $0 [start|stop]" >&2; exit 2 ;;
  esac
fi
