#!/usr/bin/env bash
# Runs a command inside a throw-away PostgreSQL cluster (Debian's pg_virtualenv: made before, removed after),
# with TMS_TEST_DATABASE_URL naming it, so that the test suite also runs its storage suites on PostgreSQL:
#   scripts/with-postgres.sh npm test
set -euo pipefail
if [ "${1:-}" != "--inside" ]; then
  exec pg_virtualenv "$0" --inside "$@"
fi
shift
TMS_TEST_DATABASE_URL="$(node -e 'const e = process.env, c = encodeURIComponent;
console.log(`postgres://${c(e.PGUSER)}:${c(e.PGPASSWORD)}@${e.PGHOST}:${e.PGPORT}/${c(e.PGDATABASE)}`)')"
export TMS_TEST_DATABASE_URL
exec "$@"
