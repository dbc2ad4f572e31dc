#!/usr/bin/env bash
# Starts or stops a throw-away PostgreSQL for the tests (`resume`: start again after `stop`, data kept): data in $PGDATA (default
# /tmp/tessera-pgdata), listening on 127.0.0.1:$PGPORT (default 54329), password "secret".
# As root it runs as the `postgres` user (the Debian package makes it); as anyone else, as that user.
# scripts/test.sh gives each run its own directory and a free port.
set -euo pipefail
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$PGBIN" ] || { echo "error: PostgreSQL is not installed (Debian package postgresql)" >&2; exit 1; }
# Runs a command as the database's owner.
as_owner() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$1"; else bash -c "$1"; fi
}
PGDATA=${PGDATA:-/tmp/tessera-pgdata}
PGPORT=${PGPORT:-54329}
case "${1:-start}" in
  start)
    if as_owner "$PGBIN/pg_ctl -D $PGDATA status" >/dev/null 2>&1; then
      echo "PostgreSQL already running in $PGDATA"; exit 0
    fi
    rm -rf "$PGDATA"
    if [ "$(id -u)" = 0 ]; then
      install -d -o postgres -g postgres "$PGDATA"
      # The parent of a mktemp directory is private to root: let postgres through to its data.
      chmod o+x "$(dirname "$PGDATA")"
    else
      install -d -m 0700 "$PGDATA"
    fi
    PWFILE=$(mktemp); echo secret > "$PWFILE"; [ "$(id -u)" = 0 ] && chown postgres "$PWFILE"
    as_owner "$PGBIN/initdb -D $PGDATA -U postgres --pwfile=$PWFILE --auth-local=trust --auth-host=scram-sha-256 -E UTF8" >/dev/null
    rm -f "$PWFILE"
    as_owner "$PGBIN/pg_ctl -D $PGDATA -l $PGDATA/server.log -w -o '-p $PGPORT -c listen_addresses=127.0.0.1 -k $PGDATA -c max_connections=200 -c fsync=off' start" >/dev/null
    as_owner "$PGBIN/psql -h $PGDATA -p $PGPORT -U postgres -qc 'CREATE DATABASE tessera_test'"
    echo "PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PGPORT (data in $PGDATA)"
    ;;
  stop)
    as_owner "$PGBIN/pg_ctl -D $PGDATA -m fast stop" >/dev/null 2>&1 || true
    ;;
  resume)
    # Starts a server stopped with `stop` again, on its data and with its options (a restart in two steps, for
    # the test that keeps requests coming while PostgreSQL is down).
    as_owner "$PGBIN/pg_ctl -D $PGDATA -l $PGDATA/server.log -w -o '-p $PGPORT -c listen_addresses=127.0.0.1 -k $PGDATA -c max_connections=200 -c fsync=off' start" >/dev/null
    ;;
  *)
    echo "usage: .ci/postgres.sh start|stop|resume" >&2; exit 2
    ;;
esac
