#!/bin/sh
# First start: create the cluster, superuser and database named by the env
# (as the official postgres image does), then run the server in the foreground.
set -eu

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "harness-postgres: POSTGRES_PASSWORD is not set (no default password)" >&2
        exit 1
    fi
    # A throwaway cluster: skipping the init-time fsyncs saves seconds per start.
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --encoding=UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 --no-sync >/dev/null
    rm -f "$pwfile"
    # Clients arrive through Docker's port mapping, never from 127.0.0.1 inside.
    echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
    if [ "$POSTGRES_DB" != postgres ]; then
        echo "CREATE DATABASE \"$POSTGRES_DB\";" | postgres --single -D "$PGDATA" -c fsync=off -j postgres >/dev/null
    fi
    echo "harness-postgres: initialised cluster for user $POSTGRES_USER, database $POSTGRES_DB"
fi

exec "$@"
