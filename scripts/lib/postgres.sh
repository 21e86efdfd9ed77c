# Sourced by scripts/test (bash; the caller has cd'd to the repo root).
#
# ensure_postgres: starts a PostgreSQL server of its own (Debian's binaries, data in /var/tmp, loopback port
# 55432, so a cluster the package itself started on 5432 does not matter) if it is not running, makes a role and a
# database for the tests, and sets TESSERA_TEST_POSTGRES_URL. Needs the postgresql package (scripts/test installs
# it) and root (the server runs as the postgres user). Without them it leaves the variable unset and says so;
# CI runs as root, so CI always tests PostgreSQL.
ensure_postgres() {
  local bindir
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [[ -z $bindir || $(id -u) -ne 0 ]]; then
    echo "postgres: not available (needs the postgresql package and root); the PostgreSQL tests will not run" >&2
    return 0
  fi
  local data=/var/tmp/tessera-pg-55432
  if ! runuser -u postgres -- "$bindir/pg_isready" -h 127.0.0.1 -p 55432 -q; then
    if [[ ! -f $data/PG_VERSION ]]; then
      rm -rf "$data"
      mkdir -p "$data"
      chown postgres:postgres "$data"
      local pwfile=/var/tmp/tessera-pg-55432.pw
      echo tessera-admin >"$pwfile"
      chown postgres:postgres "$pwfile"
      runuser -u postgres -- "$bindir/initdb" -D "$data" -A scram-sha-256 --pwfile="$pwfile" -U postgres >/dev/null || return 1
      rm -f "$pwfile"
    fi
    runuser -u postgres -- "$bindir/pg_ctl" -D "$data" -l "$data/server.log" -o "-c listen_addresses=127.0.0.1 -p 55432 -k /tmp" -w start >/dev/null || return 1
  fi
  export PGPASSWORD=tessera-admin
  psql_admin() { runuser -u postgres -- env PGPASSWORD=tessera-admin psql -h 127.0.0.1 -p 55432 -U postgres -tAq "$@"; }
  if [[ $(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname='tessera'") != 1 ]]; then
    psql_admin -c "CREATE ROLE tessera LOGIN PASSWORD 'tessera'" || return 1
  fi
  # Tests of a service's first start and of `migrate` make databases of their own (FreshPostgresDatabase).
  psql_admin -c "ALTER ROLE tessera CREATEDB" || return 1
  # A fresh database per run, so no state survives between runs.
  psql_admin -c "DROP DATABASE IF EXISTS tessera_test" -c "CREATE DATABASE tessera_test OWNER tessera" || return 1
  unset PGPASSWORD
  export TESSERA_TEST_POSTGRES_URL="postgres://tessera:tessera@127.0.0.1:55432/tessera_test?tlsmode=disable"
  echo "postgres: $(runuser -u postgres -- "$bindir/postgres" --version) on 127.0.0.1:55432, database tessera_test"
}
