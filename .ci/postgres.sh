#!/usr/bin/env bash
# Starts or stops a throw-away PostgreSQL for the tests (as root): data in $PGDATA (default
# /tmp/tessera-pgdata), listening on 127.0.0.1:$PGPORT (default 54329), password "secret".
# .ci/run gives each run its own directory and a free port.
set -euo pipefail
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
PGDATA=${PGDATA:-/tmp/tessera-pgdata}
PGPORT=${PGPORT:-54329}
case "${1:-start}" in
  start)
    if su postgres -s /bin/bash -c "$PGBIN/pg_ctl -D $PGDATA status" >/dev/null 2>&1; then
      echo "PostgreSQL already running in $PGDATA"; exit 0
    fi
    rm -rf "$PGDATA"
    install -d -o postgres -g postgres "$PGDATA"
    # The parent of a mktemp directory is private to root: let postgres through to its data.
    chmod o+x "$(dirname "$PGDATA")"
    PWFILE=$(mktemp); echo secret > "$PWFILE"; chown postgres "$PWFILE"
    su postgres -s /bin/bash -c "$PGBIN/initdb -D $PGDATA -U postgres --pwfile=$PWFILE --auth-local=trust --auth-host=scram-sha-256 -E UTF8" >/dev/null
    rm -f "$PWFILE"
    su postgres -s /bin/bash -c "$PGBIN/pg_ctl -D $PGDATA -l $PGDATA/server.log -w -o '-p $PGPORT -c listen_addresses=127.0.0.1 -k $PGDATA -c max_connections=200 -c fsync=off' start" >/dev/null
    su postgres -s /bin/bash -c "$PGBIN/psql -h $PGDATA -p $PGPORT -U postgres -qc 'CREATE DATABASE tessera_test'"
    echo "PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PGPORT (data in $PGDATA)"
    ;;
  stop)
    su postgres -s /bin/bash -c "$PGBIN/pg_ctl -D $PGDATA -m fast stop" >/dev/null 2>&1 || true
    ;;
esac
