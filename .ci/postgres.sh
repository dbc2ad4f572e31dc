#!/usr/bin/env bash
# Starts or stops a throw-away PostgreSQL on 127.0.0.1:54329 for the tests (as root).
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
    echo secret > /tmp/tessera-pgpw; chown postgres /tmp/tessera-pgpw
    su postgres -s /bin/bash -c "$PGBIN/initdb -D $PGDATA -U postgres --pwfile=/tmp/tessera-pgpw --auth-local=trust --auth-host=scram-sha-256 -E UTF8" >/dev/null
    su postgres -s /bin/bash -c "$PGBIN/pg_ctl -D $PGDATA -l $PGDATA/server.log -w -o '-p $PGPORT -c listen_addresses=127.0.0.1 -k /tmp -c max_connections=200 -c fsync=off' start" >/dev/null
    su postgres -s /bin/bash -c "$PGBIN/psql -h /tmp -p $PGPORT -U postgres -qc 'CREATE DATABASE tessera_test'"
    echo "PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PGPORT"
    ;;
  stop)
    su postgres -s /bin/bash -c "$PGBIN/pg_ctl -D $PGDATA -m fast stop" >/dev/null 2>&1 || true
    ;;
esac
