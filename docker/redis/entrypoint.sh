#!/bin/sh
# `redis-server ARGS`: the server with the Query Engine's modules loaded (as redis:8 has them
# built in); any other command runs as given.
set -e
if [ "$1" = redis-server ]; then
    shift
    exec redis-server "$@" \
        --loadmodule /usr/local/lib/redis/modules/redisearch.so \
        --loadmodule /usr/local/lib/redis/modules/rejson.so
fi
exec "$@"
