#!/usr/bin/env bash
# Tools some tests drive, from Debian's packages (test tools' own downloads cannot work on machines
# that reach only package registries): chromium for the browser tests, docker-compose to check the
# compose file, PostgreSQL's server for the cluster's tests. Installs what is missing when it can
# (root with apt-get); otherwise says what to do and lets the tests report it.
# The MinIO server of the S3 store's tests, and the Temporal server, its SQL tool and the Web UI
# server of the cluster's tests, are built from their Go modules (like the Temporal CLI, cached per
# user) here, before the tests, so a first build does not run inside a test's time limit.
set -euo pipefail
here="$(dirname "$0")"
"$here/../node_modules/.bin/tsx" "$here/ensure-minio.ts" >/dev/null ||
  echo "MinIO could not be built (see above); the S3 store's tests will fail until then." >&2
"$here/../node_modules/.bin/tsx" "$here/ensure-cluster-tools.ts" >/dev/null ||
  echo "The cluster's Go programs could not be built (see above); the cluster's tests will fail until then." >&2
browser="${CHROMIUM_PATH:-/usr/bin/chromium}"
missing=()
[ -x "$browser" ] || missing+=(chromium)
docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null || missing+=(docker-compose)
# Any version's server programs will do (src/cluster/postgres.ts takes the newest), or GOT_POSTGRES_BIN's.
[ -n "${GOT_POSTGRES_BIN:-}" ] || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing ${missing[*]} from Debian's packages for the tests (about a minute, once per machine)..." >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "Missing for some tests: ${missing[*]} (apt-get install ${missing[*]}; or set CHROMIUM_PATH, GOT_POSTGRES_BIN); those tests will fail until then." >&2
