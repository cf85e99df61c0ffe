#!/bin/sh
# As the official redis image: arguments alone are the server's, the server runs as `redis` in /data, and
# without a config file protected mode is turned off (it would refuse every client from another container).
set -eu
case "${1:-}" in
  -*) set -- redis-server "$@" ;;
esac
if [ "${1:-}" = redis-server ]; then
  if [ "$(id -u)" = 0 ]; then
    find . \! -user redis -exec chown redis '{}' +
    exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
  fi
  shift
  set -- redis-server --protected-mode no "$@"
fi
exec "$@"
